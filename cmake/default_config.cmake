# Writes OUT from TEMPLATE (config/default_config.cpp.in) with the text of IN
# (config/logsift.jsonc): the embedded default config. Included by
# CMakeLists.txt at configure time, and run as a script (cmake -P) by
# tests/fuzz/run.sh, which builds outside CMake.
file(READ ${IN} LOGSIFT_DEFAULT_CONFIG_TEXT)
configure_file(${TEMPLATE} ${OUT} @ONLY)

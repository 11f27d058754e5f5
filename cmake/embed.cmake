# Writes OUT: a C++ file defining `extern const unsigned char NAME[]` and
# `extern const size_t NAME_size` with the bytes of IN (run as a script at
# build time: cmake -DIN=... -DOUT=... -DNAME=... -P embed.cmake).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Break the initializer into lines so compilers and diffs stay happy.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\n#include <cstddef>\n"
  "extern const unsigned char ${NAME}[] = {${bytes}0x00};\n"
  "extern const std::size_t ${NAME}_size = ${size};\n")

# The documentation checks (tests/docs/check_docs.py): README.md and docs/
# cannot drift from the code. Included from the top-level CMakeLists.txt,
# after DEBIAN_PYTHON is found (/usr/bin/python3: standard library only).
if(BUILD_TESTING AND DEBIAN_PYTHON)
  # Every relative link and #anchor resolves; no link leaves the repository.
  add_test(NAME docs_links COMMAND ${DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/docs/check_docs.py links)
  # docs/api.md lists exactly the routes of service/api/spec/openapi.json and
  # names every route the dispatcher answers.
  add_test(NAME docs_api COMMAND ${DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/docs/check_docs.py api)
  # docs/configuration.md lists every key of config/logsift.jsonc and of
  # config/config.cpp's key table, with the file's defaults.
  add_test(NAME docs_config COMMAND ${DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/docs/check_docs.py config)
  # Every message on docs/troubleshooting.md is one the C++/JS source can emit.
  add_test(NAME docs_troubleshooting COMMAND ${DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/docs/check_docs.py troubleshooting)
  # The checker fails on a broken tree (a broken link, a missing route, a
  # missing config key, an unknown message).
  add_test(NAME docs_checker_selftest COMMAND ${DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/docs/test_check_docs.py)
  set_tests_properties(docs_links docs_api docs_config docs_troubleshooting docs_checker_selftest
                       PROPERTIES LABELS docs TIMEOUT 120)
endif()

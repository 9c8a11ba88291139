# cmake -DIN=FILE -DOUT=FILE.gz -P gzip.cmake
# Debian wants manual pages and changelogs gzipped at the highest level without a
# name or timestamp in the header (-n), so the package is reproducible. CMake has no
# plain gzip writer; gzip itself is an Essential package on Debian.
execute_process(COMMAND gzip -9 -n -c "${IN}" OUTPUT_FILE "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "gzip ${IN} failed: ${rc}")
endif()

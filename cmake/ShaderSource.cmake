# Writes OUTPUT: the GLSL of INPUT as the compiler sees it. Each line `#include "NAME.glslh"` is
# replaced by INCLUDE_DIR/NAME.glslh (one level: an included file includes nothing), followed by
# a #line directive, so that the compiler's line numbers stay those of INPUT; given DEFINE
# (NAME=VALUE), "#define NAME VALUE" goes after the #version line, so one source builds several
# shaders (see "VARIANT" in src/CMakeLists.txt). glslc and the shaderc run-time build both
# compile these outputs, so neither needs include support of its own.
file(READ ${INPUT} source)
string(FIND "${source}" "#version 450\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${INPUT}: no '#version 450' line")
endif()
string(SUBSTRING "${source}" 0 ${at} before)
string(REGEX MATCHALL "\n" newlines "${before}")
list(LENGTH newlines count)
math(EXPR after_version "${count} + 2")  # the line after #version
set(out "")
set(line 1)  # the line of INPUT on which `source` (what is left of it) starts
# A directive starts its line (never the first: #version is first).
while(source MATCHES "\n#include \"([a-z0-9_]+\\.glslh)\"")
  set(name ${CMAKE_MATCH_1})
  set(directive "#include \"${name}\"")
  string(FIND "${source}" "\n${directive}" at)
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${source}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines count)
  math(EXPR line "${line} + ${count}")
  if(NOT EXISTS ${INCLUDE_DIR}/${name})
    message(FATAL_ERROR "${INPUT}:${line}: no ${INCLUDE_DIR}/${name} to include")
  endif()
  file(READ ${INCLUDE_DIR}/${name} included)
  if(included MATCHES "#include ")
    message(FATAL_ERROR "${INCLUDE_DIR}/${name}: an included file includes nothing")
  endif()
  string(LENGTH "${directive}" length)
  math(EXPR after "${at} + ${length}")
  string(SUBSTRING "${source}" ${after} -1 source)
  math(EXPR next "${line} + 1")
  # `source` goes on with the directive's line break, after which INPUT's line `next` follows.
  string(APPEND out "${before}${included}#line ${next}")
endwhile()
string(APPEND out "${source}")
if(DEFINE)
  string(REPLACE "=" " " define "${DEFINE}")
  string(REPLACE "#version 450\n" "#version 450\n#define ${define}\n#line ${after_version}\n" out "${out}")
endif()
file(WRITE ${OUTPUT}.tmp "${out}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)

# Writes OUTPUT: the GLSL of INPUT with "#define NAME VALUE" (DEFINE is NAME=VALUE) after its
# #version line, so one source builds several shaders (see "VARIANT" in src/CMakeLists.txt).
file(READ ${INPUT} source)
string(REPLACE "=" " " define "${DEFINE}")
string(FIND "${source}" "#version 450\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${INPUT}: no '#version 450' line to put the variant's define after")
endif()
string(REPLACE "#version 450\n" "#version 450\n#define ${define}\n" source "${source}")
file(WRITE ${OUTPUT}.tmp "${source}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)

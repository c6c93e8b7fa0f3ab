# embed.cmake: writes OUTPUT, a C file that defines NAME (a NUL-terminated char array holding the
# bytes of INPUT) and NAME_len (their count). Run as: cmake -DINPUT=.. -DOUTPUT=.. -DNAME=.. -P
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR bytes "${digits} / 2")
# Every byte as \xNN: a string literal holds any byte, and an escape never runs into the next.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
# One line of C per line of the input.
string(REPLACE "\\x0a" "\\x0a\"\n    \"" lines "${escaped}")
get_filename_component(source "${INPUT}" NAME)
file(WRITE "${OUTPUT}" "/* Generated from ${source} by cmake/embed.cmake: do not edit. */\n#include <stddef.h>\n\nextern const char ${NAME}[];\nextern const size_t ${NAME}_len;\n\nconst char ${NAME}[] =\n    \"${lines}\";\nconst size_t ${NAME}_len = ${bytes};\n")

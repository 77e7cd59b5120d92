# Writes OUT: a C file defining NAME as the bytes of IN, NUL-terminated, so
# scripts under scripts/ travel inside the binary.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* Generated from ${NAME_SRC} by cmake/embed.cmake. */\nconst char ${NAME}[] = {${bytes} 0};\n")

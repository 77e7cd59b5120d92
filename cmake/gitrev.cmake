# Writes OUT defining rb_git_revision from the tree at SRC. Rewrites the file
# only when the revision changed, so an unchanged tree rebuilds nothing.
execute_process(
  COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
set(text "/* Generated at build time by cmake/gitrev.cmake. */\nconst char rb_git_revision[] = \"${rev}\";\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()

# page_quotes_file: fails unless the text of QUOTED appears, byte for byte, in PAGE (a docs page quoting a checked file).
file(READ "${QUOTED}" quoted)
file(READ "${PAGE}" page)
string(FIND "${page}" "${quoted}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PAGE} does not quote ${QUOTED} exactly")
endif()

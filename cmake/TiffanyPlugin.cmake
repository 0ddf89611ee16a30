# tiffany_add_plugin(NAME SOURCE...): builds the handler plugin lib<NAME>.so.
# The plugin links no Tiffany library: its calls into Tiffany resolve against
# the tiffany executable when the plugin is loaded.
function(tiffany_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE Tiffany::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_EXTENSIONS OFF
    CXX_VISIBILITY_PRESET hidden       # only the two plugin entry points are exported
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# Included last by the top-level CMakeLists.txt: writes the links between the
# project's own targets to layering_links.txt and adds the ctest `layering`,
# which checks them and every #include against the module graph in
# check_layering.cmake.

# Appends "<dir> <target> <dep dir> <dep target>" for every link from a
# target defined under `dir` (recursively) to another target of this project.
function(ccreplay_collect_links dir out_lines)
  set(lines "")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(own_dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH own_rel "${PROJECT_SOURCE_DIR}" "${own_dir}")
    get_target_property(deps ${target} LINK_LIBRARIES)
    get_target_property(interface_deps ${target} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS deps interface_deps)
      if(NOT dep OR NOT TARGET "${dep}")
        continue()
      endif()
      get_target_property(imported ${dep} IMPORTED)
      if(imported)
        continue()
      endif()
      get_target_property(dep_dir ${dep} SOURCE_DIR)
      file(RELATIVE_PATH dep_rel "${PROJECT_SOURCE_DIR}" "${dep_dir}")
      if(dep_rel STREQUAL "")
        set(dep_rel ".")  # a target of the top-level CMakeLists (test helpers)
      endif()
      list(APPEND lines "${own_rel} ${target} ${dep_rel} ${dep}")
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    ccreplay_collect_links("${sub}" sub_lines)
    list(APPEND lines ${sub_lines})
  endforeach()
  set(${out_lines} "${lines}" PARENT_SCOPE)
endfunction()

ccreplay_collect_links("${PROJECT_SOURCE_DIR}" ccreplay_links)
list(REMOVE_DUPLICATES ccreplay_links)
list(JOIN ccreplay_links "\n" ccreplay_links_text)
file(WRITE "${PROJECT_BINARY_DIR}/layering_links.txt" "${ccreplay_links_text}\n")

add_test(NAME layering
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DLINKS_FILE=${PROJECT_BINARY_DIR}/layering_links.txt
          -P ${PROJECT_SOURCE_DIR}/scripts/check_layering.cmake)

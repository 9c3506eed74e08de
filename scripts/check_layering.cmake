# The layering check (run by ctest as `layering`): every #include "x/..." of
# a project file, and every link between the project's own CMake targets,
# must point down the module graph below. A violation fails the test with one
# line per arrow.
#
#   cmake -DSOURCE_DIR=<repo> [-DLINKS_FILE=<build>/layering_links.txt]
#         -P scripts/check_layering.cmake
#
# The graph ("cli -> {lab, reports} -> replay -> {cc, parsers} -> proto",
# cc pure, lab never reaching reports): a module may include itself
# and the modules listed for it. The lab lives in cli/lab/ or lab/; both
# count as module `lab`, so the check holds before and after the move.
cmake_minimum_required(VERSION 3.18)

set(ALLOWED_cli lab reports replay cc parsers proto)
set(ALLOWED_lab replay cc parsers proto)
set(ALLOWED_reports replay cc parsers proto)
set(ALLOWED_replay cc parsers proto)
set(ALLOWED_cc "")
set(ALLOWED_parsers proto)
set(ALLOWED_proto "")
# Benchmarks and fuzzers may use anything below the binary.
set(ALLOWED_bench bench lab reports replay cc parsers proto)
set(ALLOWED_fuzz fuzz lab reports replay cc parsers proto)
set(MODULES cli lab reports replay cc parsers proto bench fuzz)

# Known upward arrows allowed for now, one "<file or target> -> <include or
# target>" per entry, with the lab spelled lab/ wherever it lives; empty since
# the json/lab work removed the last ones. An entry that no longer occurs is
# reported, not failed.
set(KNOWN_VIOLATIONS)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P check_layering.cmake")
endif()

# The module a repository path belongs to ("" when none), and the path with
# cli/lab/ spelled lab/.
function(module_of path out_module out_path)
  string(REGEX REPLACE "^cli/lab/" "lab/" path "${path}")
  string(REGEX MATCH "^[a-z_]+/" top "${path}")
  string(REGEX REPLACE "/$" "" top "${top}")
  if(NOT top IN_LIST MODULES)
    set(top "")
  endif()
  set(${out_module} "${top}" PARENT_SCOPE)
  set(${out_path} "${path}" PARENT_SCOPE)
endfunction()

set(violations "")
set(seen_known "")
# Records the arrow `from_label -> to_label` (modules from_module,
# to_module) as a violation unless the graph or the known list allows it.
macro(check_arrow from_module from_label to_module to_label)
  if(NOT "${to_module}" STREQUAL "" AND
     NOT "${to_module}" STREQUAL "${from_module}" AND
     NOT "${to_module}" IN_LIST ALLOWED_${from_module})
    set(arrow "${from_label} -> ${to_label}")
    if(arrow IN_LIST KNOWN_VIOLATIONS)
      list(APPEND seen_known "${arrow}")
    else()
      list(APPEND violations "${arrow} (${from_module} may not use ${to_module})")
    endif()
  endif()
endmacro()

# Includes.
file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/*.h" "${SOURCE_DIR}/*.cc" "${SOURCE_DIR}/*.c")
set(files_checked 0)
foreach(rel IN LISTS sources)
  module_of("${rel}" from_module from_path)
  if(from_module STREQUAL "")
    continue()  # build trees, third-party copies
  endif()
  math(EXPR files_checked "${files_checked} + 1")
  file(STRINGS "${SOURCE_DIR}/${rel}" includes
       REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" header "${line}")
    module_of("${header}" to_module to_path)
    check_arrow("${from_module}" "${from_path}" "${to_module}" "${to_path}")
  endforeach()
endforeach()

# Links between the project's targets, written at configure time by
# ccreplay_write_link_graph() as "<dir> <target> <dep dir> <dep target>".
set(links_checked 0)
if(LINKS_FILE)
  file(STRINGS "${LINKS_FILE}" links)
  foreach(link IN LISTS links)
    separate_arguments(parts UNIX_COMMAND "${link}")
    list(GET parts 0 dir)
    list(GET parts 1 target)
    list(GET parts 2 dep_dir)
    list(GET parts 3 dep_target)
    module_of("${dir}/" from_module unused)
    module_of("${dep_dir}/" to_module unused)
    if(NOT from_module STREQUAL "")
      math(EXPR links_checked "${links_checked} + 1")
      check_arrow("${from_module}" "${target}" "${to_module}" "${dep_target}")
    endif()
  endforeach()
endif()

list(REMOVE_DUPLICATES seen_known)
foreach(arrow IN LISTS KNOWN_VIOLATIONS)
  if(arrow IN_LIST seen_known)
    message(STATUS "known violation (allow-listed): ${arrow}")
  else()
    message(STATUS "allow-list entry no longer occurs, remove it: ${arrow}")
  endif()
endforeach()
message(STATUS "checked ${files_checked} files and ${links_checked} target links")
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "layering violations:\n  ${text}")
endif()

# The one-way dependencies between mxla's libraries, enforced: a library's
# sources and headers may include only its own folder and the folders of
# the mxla libraries it links (directly or not). A folder may hold more
# than one library (ir: mxla_ir, and mxla_hlo_verifier above shape
# inference). Each library's check then covers the files it lists (SRCS,
# HDRS) and the folder's unlisted files (internal headers, which any
# library of the folder may include), not the other libraries' files; and
# no file may include a file that a library it does not link lists.
# mxla_library registers every library and the check runs once CMake has
# read them all; the `layering` test checks again after edits
# (cmake -DMXLA_LAYERS=<file> -P MxlaLayering.cmake).

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.20)  # IN_LIST, as in the project
endif()

# Folders whose headers are mxla's (absl/, llvm/ and the standard are not).
set(MXLA_LAYER_FOLDERS ir shape_inference hlo_text semantics interpreter
    builder passes transforms codegen runtime driver distributed tools tests)

# Fails if a file in `folder`, other than those in `skipped` (the files of
# the folder's other libraries), includes a layer folder outside `allowed`
# or a file in `forbidden` (the files of libraries it does not link).
# Paths are relative to source_dir.
function(mxla_check_includes library folder allowed source_dir skipped
         forbidden)
  file(GLOB files RELATIVE ${source_dir} ${source_dir}/${folder}/*.h
       ${source_dir}/${folder}/*.cc ${source_dir}/${folder}/*.def)
  string(REPLACE ";" ", " allowed_text "${allowed}")
  foreach(name ${files})
    if(name IN_LIST skipped)
      continue()
    endif()
    file(STRINGS ${source_dir}/${name} lines REGEX "^#include \"[a-z_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"(([a-z_]+)/[^\"]*)\".*" "\\1" path
             "${line}")
      string(REGEX REPLACE "/.*" "" included "${path}")
      if(included IN_LIST MXLA_LAYER_FOLDERS AND NOT included IN_LIST allowed)
        message(FATAL_ERROR "layering: ${name} includes ${path}, but "
                "${library} may use only ${allowed_text} (add the library "
                "to its DEPS if the dependency is meant)")
      endif()
      if(path IN_LIST forbidden)
        message(FATAL_ERROR "layering: ${name} includes ${path}, which "
                "belongs to a library that ${library} does not link (add "
                "it to the DEPS if the dependency is meant)")
      endif()
    endforeach()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  include(${MXLA_LAYERS})
  return()
endif()

# mxla_library's record of a library: its folder, DEPS and files (SRCS and
# HDRS, relative to the project's source directory).
function(mxla_layer_register name dir deps files)
  set_property(GLOBAL APPEND PROPERTY MXLA_LAYER_LIBRARIES ${name})
  set_property(GLOBAL PROPERTY MXLA_LAYER_DIR_${name} ${dir})
  set_property(GLOBAL PROPERTY MXLA_LAYER_DEPS_${name} ${deps})
  set_property(GLOBAL PROPERTY MXLA_LAYER_FILES_${name} ${files})
endfunction()

# `library` and the mxla libraries it links, directly or not.
function(mxla_layer_closure library out)
  set(closure ${library})
  set(queue ${library})
  while(queue)
    list(POP_FRONT queue current)
    get_property(deps GLOBAL PROPERTY MXLA_LAYER_DEPS_${current})
    foreach(dep ${deps})
      get_property(known GLOBAL PROPERTY MXLA_LAYER_DIR_${dep} SET)
      if(known AND NOT dep IN_LIST closure)
        list(APPEND closure ${dep})
        list(APPEND queue ${dep})
      endif()
    endforeach()
  endwhile()
  set(${out} ${closure} PARENT_SCOPE)
endfunction()

# Checks every registered library and writes the checks into MXLA_LAYERS for
# the `layering` test.
function(mxla_check_layers)
  get_property(libraries GLOBAL PROPERTY MXLA_LAYER_LIBRARIES)
  foreach(library ${libraries})
    get_property(dir GLOBAL PROPERTY MXLA_LAYER_DIR_${library})
    mxla_layer_closure(${library} linked)
    set(allowed "")
    foreach(dep ${linked})
      get_property(dep_dir GLOBAL PROPERTY MXLA_LAYER_DIR_${dep})
      list(APPEND allowed ${dep_dir})
    endforeach()
    list(REMOVE_DUPLICATES allowed)
    set(skipped "")
    set(forbidden "")
    foreach(other ${libraries})
      get_property(other_dir GLOBAL PROPERTY MXLA_LAYER_DIR_${other})
      get_property(other_files GLOBAL PROPERTY MXLA_LAYER_FILES_${other})
      if(NOT other STREQUAL library AND other_dir STREQUAL dir)
        list(APPEND skipped ${other_files})
      endif()
      if(NOT other IN_LIST linked AND other_dir IN_LIST allowed)
        list(APPEND forbidden ${other_files})
      endif()
    endforeach()
    mxla_check_includes(${library} ${dir} "${allowed}" ${PROJECT_SOURCE_DIR}
                        "${skipped}" "${forbidden}")
    file(APPEND ${MXLA_LAYERS} "mxla_check_includes(${library} ${dir}
  \"${allowed}\" ${PROJECT_SOURCE_DIR}
  \"${skipped}\"
  \"${forbidden}\")\n")
  endforeach()
endfunction()

# At the end of the directory that includes this file (the top level).
cmake_language(DEFER CALL mxla_check_layers)

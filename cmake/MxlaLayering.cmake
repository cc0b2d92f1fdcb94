# The one-way dependencies between mxla's folders, enforced: a library's
# sources and headers may include only its own folder and the folders of
# the mxla libraries it links (directly or not). mxla_library checks every
# library when CMake configures; the `layering` test checks again after
# edits (cmake -DMXLA_LAYERS=<file> -P MxlaLayering.cmake).

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.20)  # IN_LIST, as in the project
endif()

# Folders whose headers are mxla's (absl/, llvm/ and the standard are not).
set(MXLA_LAYER_FOLDERS ir hlo_text semantics interpreter builder passes codegen
    runtime driver tools tests)

# Fails if a file in `folder` includes a layer folder outside `allowed`.
function(mxla_check_includes library folder allowed source_dir)
  file(GLOB files ${source_dir}/${folder}/*.h ${source_dir}/${folder}/*.cc
       ${source_dir}/${folder}/*.def)
  foreach(file ${files})
    file(STRINGS ${file} lines REGEX "^#include \"[a-z_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"(([a-z_]+)/[^\"]*)\".*" "\\1" path
             "${line}")
      string(REGEX REPLACE "/.*" "" included "${path}")
      if(included IN_LIST MXLA_LAYER_FOLDERS AND NOT included IN_LIST allowed)
        file(RELATIVE_PATH name ${source_dir} ${file})
        string(REPLACE ";" ", " allowed_text "${allowed}")
        message(FATAL_ERROR "layering: ${name} includes ${path}, but "
                "${library} may use only ${allowed_text} (add the library "
                "to its DEPS if the dependency is meant)")
      endif()
    endforeach()
  endforeach()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  include(${MXLA_LAYERS})
endif()

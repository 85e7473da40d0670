# featc_generate(): C from featc specs, as part of a target's sources.
#
#   featc_generate(TARGET <target> SPECS <spec.feat>...
#                  [DRIVER] [DRIVER_EXAMPLE <name>]
#                  [OUTPUT_DIR <dir>] [LINK <library>|NONE] [OUT_VAR <var>])
#
# For each spec NAME.feat, runs `featc compile` at build time into OUTPUT_DIR
# (default: <target>_featc in the current binary directory; relative paths
# are taken from there), writing NAME.h and NAME.c, and with DRIVER also
# NAME_main.c, a main() that prints TFRecord files as JSON (through the
# spec's first example, or DRIVER_EXAMPLE).  The files are added to the
# target's sources, OUTPUT_DIR to its include directories (PUBLIC), and the
# runtime to what it links (LINK: featc::runtime by default,
# featc::runtime_static for a static one, NONE for nothing).  OUT_VAR names
# a variable set to the generated files.
#
# Rebuilds: the generated files depend on the spec through the dependency
# file featc writes (--depfile) and on the featc program itself; touching a
# spec regenerates that spec's files and rebuilds the targets that use them,
# nothing else.  The featc that runs is FEATC_EXECUTABLE when set (a host
# featc when cross-compiling), else featc::featc.

# The depfile's paths are absolute: with CMP0116 NEW (CMake 3.20+) the Ninja
# generator rewrites them as Ninja expects whatever the calling project's
# cmake_minimum_required says (a function keeps the policies in force where
# it was defined).
# featc_breaking_test(): a spec change that breaks data, stopped by CTest.
#
#   featc_breaking_test(NAME <test> OLD <old.feat>|git:<rev>:<path> NEW <new.feat>
#                       [RULES <rule>...])
#
# Adds the test NAME, which runs `featc breaking OLD NEW` (in the current
# source directory, so that git:<rev>:<path> names a spec at a revision of
# the project's repository, e.g. git:origin/main:specs/clicks.feat): it
# fails, printing each change, when NEW breaks records written under OLD.
# RULES: only these rules (featc breaking --list-rules).

# The featc that runs at build time, in var (see featc_generate).
macro(_featc_program var)
  if(FEATC_EXECUTABLE)
    set(${var} "${FEATC_EXECUTABLE}")
  elseif(CMAKE_CROSSCOMPILING)
    find_program(FEATC_HOST_EXECUTABLE featc NO_CMAKE_FIND_ROOT_PATH)
    if(NOT FEATC_HOST_EXECUTABLE)
      message(FATAL_ERROR "featc: cross-compiling needs a featc that runs on this "
                          "machine: set FEATC_EXECUTABLE to its path")
    endif()
    set(${var} "${FEATC_HOST_EXECUTABLE}")
  else()
    get_target_property(${var} featc::featc IMPORTED_LOCATION)
  endif()
endmacro()

function(featc_breaking_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;OLD;NEW" "RULES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "featc_breaking_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_OLD OR NOT arg_NEW)
    message(FATAL_ERROR "featc_breaking_test: NAME, OLD and NEW are required")
  endif()
  _featc_program(featc)
  set(rules)
  if(arg_RULES)
    list(JOIN arg_RULES "," joined)
    set(rules "--rules=${joined}")
  endif()
  add_test(NAME "${arg_NAME}"
           COMMAND "${featc}" breaking ${rules} "${arg_OLD}" "${arg_NEW}"
           WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
endfunction()

cmake_policy(PUSH)
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()
function(featc_generate)
  cmake_parse_arguments(PARSE_ARGV 0 arg "DRIVER"
    "TARGET;OUTPUT_DIR;DRIVER_EXAMPLE;LINK;OUT_VAR" "SPECS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "featc_generate: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TARGET)
    message(FATAL_ERROR "featc_generate: TARGET <target> is required")
  endif()
  if(NOT TARGET "${arg_TARGET}")
    message(FATAL_ERROR "featc_generate: '${arg_TARGET}' is not a target (add it first)")
  endif()
  if(NOT arg_SPECS)
    message(FATAL_ERROR "featc_generate: SPECS <spec.feat>... is required")
  endif()

  _featc_program(featc)

  set(dir "${arg_OUTPUT_DIR}")
  if(NOT dir)
    set(dir "${arg_TARGET}_featc")
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  set(options)
  if(arg_DRIVER_EXAMPLE)
    list(APPEND options "--driver=${arg_DRIVER_EXAMPLE}")
  elseif(arg_DRIVER)
    list(APPEND options --driver)
  endif()

  set(all_outputs)
  foreach(spec IN LISTS arg_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # featc's NAME: the file name up to its first dot, as NAME_WE
    get_filename_component(name "${spec}" NAME_WE)
    set(outputs "${dir}/${name}.h" "${dir}/${name}.c")
    if(options)
      list(APPEND outputs "${dir}/${name}_main.c")
    endif()
    set(depfile_args)
    if(POLICY CMP0116) # before 3.20: the DEPENDS on the spec alone
      set(depfile_args DEPFILE "${dir}/${name}.d")
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND "${featc}" compile -o "${dir}" --depfile "${dir}/${name}.d" ${options} "${spec}"
      DEPENDS "${spec}" "${featc}"
      ${depfile_args}
      COMMENT "featc: generating C from ${spec}"
      VERBATIM)
    list(APPEND all_outputs ${outputs})
  endforeach()

  target_sources("${arg_TARGET}" PRIVATE ${all_outputs})
  target_include_directories("${arg_TARGET}" PUBLIC "${dir}")
  set(link "${arg_LINK}")
  if(NOT link)
    set(link featc::runtime)
  endif()
  if(NOT link STREQUAL "NONE")
    # Appended to the properties rather than through target_link_libraries,
    # whose plain and keyword forms cannot be mixed on one target.
    set_property(TARGET "${arg_TARGET}" APPEND PROPERTY LINK_LIBRARIES "${link}")
    # A library's users include the generated header, which includes
    # featc's; a static one's users also link the runtime.
    get_target_property(type "${arg_TARGET}" TYPE)
    if(type MATCHES "LIBRARY$")
      set_property(TARGET "${arg_TARGET}" APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
        "$<TARGET_PROPERTY:${link},INTERFACE_INCLUDE_DIRECTORIES>")
    endif()
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
      set_property(TARGET "${arg_TARGET}" APPEND PROPERTY
        INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:${link}>")
    endif()
  endif()
  if(arg_OUT_VAR)
    set("${arg_OUT_VAR}" ${all_outputs} PARENT_SCOPE)
  endif()
endfunction()
cmake_policy(POP)

# cmake --install BUILD --prefix P: the library, its public headers, the tvk CLI, a CMake package
# (find_package(tvk CONFIG) -> tvk::tvk) and a pkg-config file (pkg-config --cflags --libs tvk).
include(CMakePackageConfigHelpers)

set(TVK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tvk)
# The CLI finds libtvk.so in ../lib wherever the prefix is moved.
file(RELATIVE_PATH TVK_BIN_TO_LIB /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
if(TARGET tvk_cli)
  set_target_properties(tvk_cli PROPERTIES INSTALL_RPATH "\$ORIGIN/${TVK_BIN_TO_LIB}")
  install(TARGETS tvk_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(TARGETS tvk EXPORT tvkTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tvk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tvk/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tvk)

install(EXPORT tvkTargets NAMESPACE tvk:: DESTINATION ${TVK_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tvkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/tvkConfig.cmake INSTALL_DESTINATION ${TVK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/tvkConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tvkConfig.cmake ${PROJECT_BINARY_DIR}/cmake/tvkConfigVersion.cmake
        DESTINATION ${TVK_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own place, since `cmake --install --prefix`
# chooses it after configuration.
file(RELATIVE_PATH TVK_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/tvk.pc.in ${PROJECT_BINARY_DIR}/tvk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tvk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

/* Preloaded in the sanitizer run (scripts/test.sh --sanitize): dlclose keeps every library
 * loaded, so that LeakSanitizer's report at exit can still name the Vulkan loader's, driver's
 * and validation layer's allocations (and tests/sanitize/lsan.supp can match them) instead of
 * "<unknown module>" frames of libraries unloaded before the report. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}

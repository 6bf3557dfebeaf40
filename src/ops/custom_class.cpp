#include "ops/custom_class.h"

#include <map>

namespace tvk::ops {

namespace {
std::map<std::string, CustomClass>& classes() {
  static std::map<std::string, CustomClass> table;
  return table;
}
}  // namespace

void register_custom_class(CustomClass cls) {
  std::string name = cls.qualified_name;
  classes()[name] = std::move(cls);
}

const CustomClass* find_custom_class(const std::string& qualified_name) {
  auto it = classes().find(qualified_name);
  return it == classes().end() ? nullptr : &it->second;
}

}  // namespace tvk::ops

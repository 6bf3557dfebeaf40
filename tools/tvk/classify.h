// `tvk classify IMAGE... --model M`: see classify.cpp and the usage text in main.cpp.
#pragma once

namespace tvk::cli {

int cmd_classify(int argc, char** argv);

}  // namespace tvk::cli

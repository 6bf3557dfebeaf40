// Shared by the CLI's commands: argument parsing and small output helpers.
#pragma once

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tvk/device.h"
#include "tvk/error.h"
#include "tvk/limits.h"
#include "tvk/vulkan_info.h"

namespace tvk::cli {

// Command-line arguments after the command name: flags with values, and positionals.
struct Args {
  std::vector<std::string> positional;
  std::multimap<std::string, std::string> flags;
  std::vector<std::string> switches;

  Args(int argc, char** argv, std::initializer_list<const char*> value_flags,
       std::initializer_list<const char*> switch_flags = {}) {
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      bool known = false;
      for (const char* f : switch_flags) {
        if (a == f) {
          switches.push_back(a);
          known = true;
        }
      }
      for (const char* f : value_flags) {
        if (a == f) {
          if (i + 1 >= argc) throw tvk::Error(a + " needs a value");
          flags.emplace(a, argv[++i]);
          known = true;
        }
      }
      // Every command that runs model code takes its limits.
      for (const char* f : {"--timeout", "--max-memory", "--max-device-memory", "--max-steps"}) {
        if (a == f && !known) {
          if (i + 1 >= argc) throw tvk::Error(a + " needs a value");
          flags.emplace(a, argv[++i]);
          known = true;
        }
      }
      if (known) continue;
      if (a.size() > 1 && a[0] == '-') throw tvk::Error("unknown option " + a);
      positional.push_back(a);
    }
  }
  std::vector<std::string> all(const std::string& flag) const {
    std::vector<std::string> out;
    auto [lo, hi] = flags.equal_range(flag);
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    return out;
  }
  std::string get(const std::string& flag, const std::string& fallback) const {
    auto v = all(flag);
    if (v.size() > 1) throw tvk::Error(flag + " given more than once");
    return v.empty() ? fallback : v[0];
  }
  bool has(const std::string& flag) const { return std::find(switches.begin(), switches.end(), flag) != switches.end(); }
  int get_int(const std::string& flag, int fallback, int min) const {
    const std::string v = get(flag, std::to_string(fallback));
    int n = 0;
    try {
      size_t used = 0;
      n = std::stoi(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      throw tvk::Error(flag + " needs an integer, got '" + v + "'");
    }
    if (n < min) throw tvk::Error(flag + " must be at least " + std::to_string(min) + ", got " + v);
    return n;
  }
  // --timeout SECONDS, --max-memory SIZE and --max-device-memory SIZE (K/M/G suffixes), --max-steps
  // N: tvk::Limits.
  tvk::Limits limits() const {
    tvk::Limits l;
    if (flags.count("--timeout")) {
      const std::string v = get("--timeout", "");
      try {
        size_t used = 0;
        l.timeout_s = std::stod(v, &used);
        if (used != v.size() || !(l.timeout_s > 0)) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw tvk::Error("--timeout needs a positive number of seconds, got '" + v + "'");
      }
    }
    if (flags.count("--max-memory")) l.max_memory = tvk::parse_size(get("--max-memory", ""));
    if (flags.count("--max-device-memory")) l.max_device_memory = tvk::parse_size(get("--max-device-memory", ""));
    if (flags.count("--max-steps")) l.max_steps = tvk::parse_size(get("--max-steps", ""));
    return l;
  }
  const std::string& model() const {
    if (positional.size() != 1) throw tvk::Error("expected exactly one MODEL path");
    return positional[0];
  }
};

inline std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// A JSON string literal.
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// --cpu-fallback: ops without a Vulkan kernel run on the CPU (tvk::set_cpu_fallback).
inline void apply_cpu_fallback(const Args& args) {
  if (args.has("--cpu-fallback")) tvk::set_cpu_fallback(true);
}

// --precision fp32|fp16: the precision Vulkan weights are packed in (set before the model loads,
// since optimized models pack theirs at load). Returns the name given.
inline std::string apply_precision(const Args& args, tvk::Device device) {
  const std::string precision = args.get("--precision", "fp32");
  if (precision != "fp32" && precision != "fp16")
    throw tvk::Error("--precision must be fp32 or fp16, got '" + precision + "'");
  if (precision == "fp16") {
    if (device != tvk::Device::Vulkan) throw tvk::Error("--precision fp16 needs --device vulkan");
    tvk::set_vulkan_precision(tvk::Precision::FP16);
  }
  return precision;
}

}  // namespace tvk::cli

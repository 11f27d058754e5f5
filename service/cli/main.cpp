// logsift: serve | cluster | eval | tokenize | wordpiece | pairs | config
#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/cli/cli.h"

namespace {

using namespace logsift::cli;

const Command* const kCommands[] = {&kServe, &kCluster, &kEval, &kTokenize, &kWordpiece, &kPairs, &kMine, &kMigrate, &kModels, &kConfig};

void usage(std::ostream& o) {
  o << "logsift: real-time log clustering\n\nusage: logsift <command> [options]\n\ncommands:\n";
  for (const Command* c : kCommands) {
    std::string name = c->name;
    name.resize(11, ' ');
    o << "  " << name << c->summary << "\n";
  }
  o << "\nRun `logsift <command> --help` for a command's options.\n";
}

bool wants_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

int help(const Command* c) {
  if (!c) {
    usage(std::cout);
    return 0;
  }
  std::cout << c->usage;
  if (c->config_flags) print_config_flags(std::cout);
  return 0;
}

const Command* find_command(const std::string& name) {
  for (const Command* c : kCommands)
    if (name == c->name) return c;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // glibc's defaults hand every allocation over 128 KB to mmap and back on
  // free: the model stages' tensors then page-fault afresh on every forward
  // (measured: 2.4x slower on the cold path). Serve them from the heap, and
  // give memory back to the OS once 64 MB are free at the top of it. Set
  // GLIBC_TUNABLES (glibc.malloc.*) to choose otherwise.
  if (!std::getenv("GLIBC_TUNABLES")) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
  }
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") return help(argc > 2 ? find_command(argv[2]) : nullptr);
  const Command* cmd = find_command(name);
  if (!cmd) {
    std::cerr << "logsift: unknown command '" << name << "'\n\n";
    usage(std::cerr);
    return 2;
  }
  if (wants_help(argc, argv)) return help(cmd);
  Args args;
  try {
    args = parse_args(argc, argv, 2, cmd->switches, cmd->options);
  } catch (const logsift::ConfigError& e) {
    std::cerr << "logsift " << name << ": invalid configuration: " << e.what() << "\n";
    return 2;
  }
  try {
    setup_logging(args.config);
    return cmd->run(args);
  } catch (const logsift::ConfigError& e) {
    std::cerr << "logsift " << name << ": invalid configuration: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "logsift " << name << ": " << e.what() << "\n";
    return 1;
  }
}

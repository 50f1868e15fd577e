// Every graph under examples/, tests/e2e/ and bench/fusion/ (the fusion
// targets) compiles into kernels, runs on
// the host device and agrees with the reference evaluator (spectral-run
// --validate), also under every check of the host device's check mode, and a
// wrong result is caught (a tolerance below the error).
#include "tests/e2e/run_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dirent.h>
#include <string>
#include <sys/wait.h>
#include <vector>

using spectral::testing::run_command;

namespace {

std::vector<std::string> graphs() {
  std::vector<std::string> files;
  for (const char* dir : {"/examples", "/tests/e2e", "/bench/fusion"}) {
    std::string path = std::string(SPECTRAL_SOURCE_DIR) + dir;
    if (DIR* d = opendir(path.c_str())) {
      while (dirent* entry = readdir(d)) {
        std::string name = entry->d_name;
        if (name.size() > 5 && name.substr(name.size() - 5) == ".mlir")
          files.push_back(path + "/" + name);
      }
      closedir(d);
    }
  }
  return files;
}

class Graphs : public ::testing::TestWithParam<std::string> {};

TEST_P(Graphs, RunOnTheHostAndPassValidation) {
  std::string output;
  int status = run_command(std::string(SPECTRAL_RUN) + " " + GetParam() +
                       " --device=host --random-inputs --seed=7 --validate",
                   &output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find(": PASS"), std::string::npos) << output;
  EXPECT_EQ(output.find(": FAIL"), std::string::npos) << output;
}

/// The host device's check mode, every check at once (host_checks.h): no
/// kernel of any graph reads past its memory, misuses a barrier, races,
/// reads memory nothing wrote, or gives other bytes in another thread order.
TEST_P(Graphs, PassEveryHostCheck) {
  std::string output;
  int status = run_command(std::string(SPECTRAL_RUN) + " " + GetParam() +
                               " --random-inputs --seed=7 --validate "
                               "--check=bounds,sync,race,init,order",
                           &output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("checking bounds,sync,race,init,order=1"), std::string::npos) << output;
  EXPECT_NE(output.find(": PASS"), std::string::npos) << output;
  EXPECT_EQ(output.find(": FAIL"), std::string::npos) << output;
}

INSTANTIATE_TEST_SUITE_P(E2e, Graphs, ::testing::ValuesIn(graphs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.rfind('/') + 1);
                           name = name.substr(0, name.size() - 5);
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(Validate, AToleranceBelowTheErrorFailsWithStatus3) {
  std::string output;
  int status = run_command(std::string(SPECTRAL_RUN) + " " + SPECTRAL_SOURCE_DIR +
                       "/examples/spectral_conv.mlir --device=host --random-inputs "
                       "--validate --validate-tolerance=1e-30",
                   &output);
  EXPECT_EQ(status, 3) << output;
  EXPECT_NE(output.find(": FAIL"), std::string::npos) << output;
}

}  // namespace

// embedded_templates_test.cc - every file of kernels_templates/ is in the build, unchanged.
#include "runtime/kernels/embedded_templates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace spectral {
namespace {

namespace fs = std::filesystem;

TEST(EmbeddedTemplates, EveryTemplateFileIsEmbeddedUnchanged) {
  const fs::path root = SPECTRAL_TEMPLATES_SOURCE_DIR;
  std::vector<std::string> on_disk;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    const std::string extension = item.path().extension().string();
    if (!item.is_regular_file() || (extension != ".cuh" && extension != ".h" && extension != ".cc"))
      continue;
    const std::string name = fs::relative(item.path(), root).generic_string();
    on_disk.push_back(name);
    const std::string* embedded = find_template(name);
    ASSERT_NE(embedded, nullptr) << name << " is not embedded; re-run cmake";
    std::ifstream in(item.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_EQ(*embedded, text.str()) << name << " changed since it was embedded";
  }
  std::sort(on_disk.begin(), on_disk.end());
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_templates()) names.push_back(file.name);
  EXPECT_EQ(names, on_disk);  // sorted, and nothing removed from disk is still embedded
  EXPECT_NE(find_template("host_emulation.h"), nullptr);
  EXPECT_EQ(find_template("does_not_exist.cuh"), nullptr);
}

TEST(EmbeddedTemplates, DigestIsAHexSha256) {
  const std::string& digest = templates_digest();
  ASSERT_EQ(digest.size(), 64u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
}

}  // namespace
}  // namespace spectral

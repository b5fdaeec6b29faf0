// Files embedded in the binary at build time (cmake/embed_files.cmake, `convfail_embed_files`):
// each generated array is {name, text} pairs sorted by name, ended by {nullptr, nullptr}.
#pragma once

namespace convfail {

struct EmbeddedFile {
  const char* name;
  const char* text;
};

}  // namespace convfail

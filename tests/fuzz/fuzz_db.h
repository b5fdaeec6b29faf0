// A fresh in-memory database with every migration applied, for the fuzz targets that store what
// they parse. Migrating once per input would cost more than the input: the migrated database is
// made once, serialised, and each call loads a copy of it (sqlite3_deserialize), so every input
// starts from the same empty store and a finding replays alone.
#pragma once

#include <sqlite3.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/db.h"
#include "core/migrations.h"

namespace convfail::fuzz {

inline const std::string& migrated_image() {
  static const std::string image = [] {
    Db db(":memory:");
    migrate(db);
    sqlite3_int64 size = 0;
    unsigned char* bytes = sqlite3_serialize(db.handle(), "main", &size, 0);
    if (!bytes) throw std::runtime_error("sqlite3_serialize failed");
    std::string out(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
    sqlite3_free(bytes);
    return out;
  }();
  return image;
}

inline std::unique_ptr<Db> fresh_db() {
  const std::string& image = migrated_image();
  auto db = std::make_unique<Db>(":memory:");
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(image.size()));
  if (!copy) throw std::bad_alloc();
  std::memcpy(copy, image.data(), image.size());
  auto size = static_cast<sqlite3_int64>(image.size());
  int rc = sqlite3_deserialize(db->handle(), "main", copy, size, size,
                               SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  if (rc != SQLITE_OK) throw std::runtime_error("sqlite3_deserialize failed");
  return db;
}

}  // namespace convfail::fuzz

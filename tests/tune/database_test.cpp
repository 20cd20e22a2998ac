// The tuning database: a save and load round trip to the same records and bytes, records used
// only on their device and environment, and files that are not databases refused by path.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ein/tune/database.hpp"

namespace database_test {

using namespace ein::tune;

namespace {

// A fresh folder for this test's files, removed at the end of the scope.
struct scratch_folder {
  std::filesystem::path path;
  explicit scratch_folder(const std::string& name) : path(std::filesystem::temp_directory_path() / ("ein_tune_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_folder() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name, const std::string& text = {}) const {
    auto p = (path / name).string();
    if (!text.empty()) std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

const device_key host{"host: test processor, 2 threads", {{"compiler", "g++ 12 -O3"}, {"ein", "0.1.0"}}};
const device_key gpu{"NVIDIA H200", {{"driver", "13000"}, {"runtime", "13000"}}};
const std::string matmul = "eoperator sum t0 t1 s0: A[t0,s0] * B[s0,t1] (64,64,64)";
const std::string relu = "eoperator max(A[t0,t1], 0) (7,512)";

tuning_record host_record() { return {host_schedule{1, 4, 8, 16, 32}, 2.5e-5, 3.125e-5, 40, "", 0.0625}; }
tuning_record gpu_record() { return {cuda_schedule{128, 2, 4, 0, true}, 1.0 / 3.0 * 1e-6, 2e-6, 12, matmul}; }

// The warnings of a database, collected.
struct warnings {
  std::vector<std::string> seen;
  tuning_database::warning_fn fn() {
    return [this](const std::string& w) { seen.push_back(w); };
  }
};

// The message of the user_error that loading `text` as a database throws, or empty.
std::string refusal(const scratch_folder& folder, const std::string& text) {
  try {
    tuning_database db(folder.file("bad.json", text));
  } catch (const ein::user_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("a saved database loads to the same records and the same bytes") {
  scratch_folder folder("round_trip");
  const auto path = folder.file("tuning.json");
  tuning_database db(path);
  CHECK(db.size(host) == 0);
  db.store(host, matmul, host_record());
  db.store(host, relu, {host_schedule{}, 1e-6, 1e-6, 1, ""});
  db.store(gpu, matmul, gpu_record());
  db.save();
  std::ifstream in(path, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(written == db.dump());

  warnings w;
  tuning_database again(path, w.fn());
  again.expect(host);
  CHECK(w.seen.empty());
  REQUIRE(again.find(host, matmul));
  CHECK(*again.find(host, matmul) == host_record());
  REQUIRE(again.find(gpu, matmul));
  CHECK(*again.find(gpu, matmul) == gpu_record());  // a third of a microsecond, to the last bit
  CHECK(again.size(host) == 2);
  CHECK(again.dump() == written);
  CHECK(written.find("\"kind\": \"cuda\"") != std::string::npos);
}

TEST_CASE("records are used only on their device and environment") {
  scratch_folder folder("devices");
  const auto path = folder.file("tuning.json");
  {
    tuning_database db(path);
    db.store(gpu, matmul, gpu_record());
    db.save();
  }
  warnings w;
  tuning_database db(path, w.fn());
  // another device: nothing is found, and a warning says whose records the file holds
  db.expect(host);
  REQUIRE(w.seen.size() == 1);
  CHECK(w.seen[0].find("holds no records of host: test processor") != std::string::npos);
  CHECK(w.seen[0].find("NVIDIA H200") != std::string::npos);
  CHECK(db.find(host, matmul) == nullptr);
  // the same device under another driver: not used, and replaced by what is tuned there
  device_key upgraded = gpu;
  upgraded.environment["driver"] = "13010";
  db.expect(upgraded);
  REQUIRE(w.seen.size() == 2);
  CHECK(w.seen[1].find("driver 13000") != std::string::npos);
  CHECK(db.find(upgraded, matmul) == nullptr);
  db.store(upgraded, relu, gpu_record());
  CHECK(db.find(gpu, matmul) == nullptr);
  CHECK(db.size(upgraded) == 1);
}

TEST_CASE("devices and records list what a database holds, by device and environment") {
  scratch_folder folder("listing");
  tuning_database db;
  db.store(host, matmul, host_record());
  db.store(gpu, matmul, gpu_record());
  db.store(gpu, relu, gpu_record());
  const auto path = folder.file("db.json");
  tuning_database saved(path);
  saved.store(host, matmul, host_record());
  saved.store(gpu, matmul, gpu_record());
  saved.store(gpu, relu, gpu_record());
  saved.save();
  const tuning_database loaded(path);
  for (const tuning_database* d : std::vector<const tuning_database*>{&db, &loaded}) {
    const auto devices = d->devices();
    REQUIRE(devices.size() == 2);
    CHECK(devices[0] == gpu);  // by name
    CHECK(devices[1] == host);
    const auto records = d->records(gpu);
    REQUIRE(records.size() == 2);
    CHECK(records.at(matmul) == gpu_record());
    CHECK(records.at(relu) == gpu_record());
    CHECK(d->records({gpu.name, {{"driver", "12000"}}}).empty());  // another environment
    CHECK(d->records({"NVIDIA A100", gpu.environment}).empty());
  }
}

TEST_CASE("a record keeps the kernel's shape, which a later tuning may start from") {
  scratch_folder folder("shape");
  const auto path = folder.file("tuning.json");
  kernel_shape tiled{"x0:float", {7, 64, 512}, {3}, 4, 1, true};
  auto r = host_record();
  r.shape = tiled;
  {
    tuning_database db(path);
    db.store(host, relu, r);
    db.store(host, matmul, host_record());  // no shape
    db.save();
  }
  const tuning_database loaded(path);
  REQUIRE(loaded.find(host, relu));
  CHECK(*loaded.find(host, relu) == r);
  CHECK(loaded.find(host, relu)->shape->staged_y == std::size_t(1));
  CHECK_FALSE(loaded.find(host, matmul)->shape);
  CHECK(loaded.dump().find("\"traversal\": [\n") != std::string::npos);
}

TEST_CASE("a database of format 1, keyed by tensor names, is read under unnamed keys and saved as format 2") {
  scratch_folder folder("format1");
  // two ReLUs of one shape over other tensors (tuned twice then), and an addition that reused the first
  const std::string relu_a = "eoperator L([0,1)[0,14))S() relu(res4_a:float[1, 14][0+1*t0,0+1*t1])";
  const std::string relu_b = "eoperator L([0,1)[0,14))S() relu(res5_a:float[1, 14][0+1*t0,0+1*t1])";
  const std::string add = "eoperator L([0,1)[0,14))S() (+ +p:float[1, 14][0+1*t0,0+1*t1] +q:float[1, 14][0+1*t0,0+1*t1])";
  auto record = [](const std::string& seconds, const std::string& reused_from) {
    return R"({"schedule": {"kind": "host", "parallel_loops": 0, "chunk": 0, "lanes": 1, "block_rows": 0,
               "block_columns": 0}, "seconds": )" +
           seconds + R"(, "default_seconds": 3e-5, "trials": 3, "reused_from": ")" + reused_from + R"("})";
  };
  const auto path = folder.file("old.json", R"({"format": 1, "devices": {"cpu": {"environment": {}, "kernels": {")" + relu_a +
                                                R"(": )" + record("2e-5", "") + R"(, ")" + relu_b + R"(": )" +
                                                record("1e-5", "") + R"(, ")" + add + R"(": )" + record("2e-5", relu_a) +
                                                "}}}}");
  tuning_database db(path);
  const device_key cpu{"cpu", {}};
  const auto records = db.records(cpu);
  REQUIRE(records.size() == 2);
  const std::string relu_key = "eoperator L([0,1)[0,14))S() relu(x0:float[1, 14][0+1*t0,0+1*t1])";
  REQUIRE(records.count(relu_key));
  CHECK(records.at(relu_key).seconds == 1e-5);  // the faster of the two
  const std::string add_key =
      "eoperator L([0,1)[0,14))S() (+ +x0:float[1, 14][0+1*t0,0+1*t1] +x1:float[1, 14][0+1*t0,0+1*t1])";
  REQUIRE(records.count(add_key));
  CHECK(records.at(add_key).reused_from == relu_key);
  db.save();
  const tuning_database saved(path);
  CHECK(saved.records(cpu) == records);
  CHECK(saved.dump().find("\"format\": 2") != std::string::npos);
}

TEST_CASE("unnamed_key names tensors by their first appearance, keeping types, shapes and repeated reads") {
  CHECK(unnamed_key("eoperator L([0,4))S() (* a:float[4][0+1*t0] b:float[4][0+1*t0])") ==
        "eoperator L([0,4))S() (* x0:float[4][0+1*t0] x1:float[4][0+1*t0])");
  CHECK(unnamed_key("eoperator L([0,4))S() (* b:float[4][0+1*t0] b:float[4][0+1*t0])") ==
        "eoperator L([0,4))S() (* x0:float[4][0+1*t0] x0:float[4][0+1*t0])");
  CHECK(unnamed_key("eoperator L([0,4))S() (* x1:bfloat16[8][0+1*t0] x0:float[4][0+1*t0])") ==
        "eoperator L([0,4))S() (* x0:bfloat16[8][0+1*t0] x1:float[4][0+1*t0])");
  CHECK(unnamed_key("") == "");
}

TEST_CASE("a file that is not a valid database is refused, naming the file and the field") {
  scratch_folder folder("corrupt");
  const std::string valid_record =
      R"({"schedule": {"kind": "host", "parallel_loops": 1, "chunk": 0, "lanes": 8, "block_rows": 0, "block_columns": 0},
          "seconds": 1e-5, "default_seconds": 2e-5, "trials": 3, "reused_from": ""})";
  auto database_of = [](const std::string& record) {
    return R"({"format": 2, "devices": {"cpu": {"environment": {}, "kernels": {"k": )" + record + "}}}}";
  };
  CHECK(refusal(folder, database_of(valid_record)).empty());
  CHECK(refusal(folder, "{\"format\": 2, \"devices\": {").find("bad.json` is not valid JSON") != std::string::npos);
  CHECK(refusal(folder, R"({"format": 3, "devices": {}})").find("at /format: a database of format 3") != std::string::npos);
  CHECK(refusal(folder, R"({"format": 2})").find("missing field `devices`") != std::string::npos);
  CHECK(refusal(folder, R"({"format": 2, "devices": {}, "extra": 0})").find("at /extra: unknown field") != std::string::npos);

  auto with = [&](const std::string& from, const std::string& to) {
    std::string r = valid_record;
    r.replace(r.find(from), from.size(), to);
    return refusal(folder, database_of(r));
  };
  CHECK(with("\"lanes\": 8", "\"lanes\": 3").find("at /devices/cpu/kernels/k/schedule/lanes: expected one of 1, 2, 4, 8, 16, got 3") !=
        std::string::npos);
  CHECK(with("\"parallel_loops\": 1", "\"parallel_loops\": -1").find("expected a count of loops") != std::string::npos);
  CHECK(with("\"kind\": \"host\"", "\"kind\": \"tpu\"").find("expected \"host\" or \"cuda\"") != std::string::npos);
  CHECK(with("\"seconds\": 1e-5", "\"seconds\": -1").find("/seconds: expected a number in (0") != std::string::npos);
  CHECK(with("\"trials\": 3", "\"trials\": 0").find("one trial at least") != std::string::npos);
  CHECK(with("\"reused_from\": \"\"", "\"reused_from\": 7").find("/reused_from: expected a string") != std::string::npos);
  CHECK(with("\"chunk\": 0, ", "").find("missing field `chunk`") != std::string::npos);
  // a margin is not negative; the record above, written before margins, has none
  CHECK(with("\"trials\": 3", "\"trials\": 3, \"margin\": 0.05").empty());
  CHECK(with("\"trials\": 3", "\"trials\": 3, \"margin\": -0.5").find("/margin: expected a number in") !=
        std::string::npos);
  // the kernel's shape, where a record keeps it
  const std::string kernel = R"(, "kernel": {"body": "b", "traversal": [7, 512], "summation": [], "widest_lanes": 16,
                                              "staged_y": null, "int_indices": true})";
  auto with_kernel = [&](const std::string& from, const std::string& to) {
    std::string k = kernel;
    if (!from.empty()) k.replace(k.find(from), from.size(), to);
    return with("\"trials\": 3", "\"trials\": 3" + k);
  };
  CHECK(with_kernel("", "").empty());
  CHECK(with_kernel("\"staged_y\": null", "\"staged_y\": 1").empty());
  CHECK(with_kernel("\"widest_lanes\": 16", "\"widest_lanes\": 3").find("/kernel/widest_lanes: expected a power of two") !=
        std::string::npos);
  CHECK(with_kernel("\"staged_y\": null", "\"staged_y\": 2").find("/kernel/staged_y: expected a traversal position") !=
        std::string::npos);
  CHECK(with_kernel("[7, 512]", "[7, -1]").find("/kernel/traversal/1: expected an extent") != std::string::npos);
  CHECK(with_kernel("\"int_indices\": true", "\"int_indices\": true, \"lanes\": 4").find("/kernel/lanes: unknown field") !=
        std::string::npos);
  CHECK(with_kernel(", \"summation\": []", "").find("missing field `summation`") != std::string::npos);

  // a folder where the file should be
  std::filesystem::create_directories(folder.path / "folder.json");
  CHECK_THROWS_AS(tuning_database((folder.path / "folder.json").string()), ein::user_error);
  // a file that does not exist is an empty database
  CHECK(tuning_database(folder.file("missing.json")).size(host) == 0);
  CHECK_THROWS_AS(tuning_database().save(), ein::internal_error);
}

}  // namespace database_test

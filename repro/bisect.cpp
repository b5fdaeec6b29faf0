#include "repro/bisect.h"

#include "exec/signature.h"
#include "repro/reproduce.h"

namespace convfail::repro {

using nlohmann::json;

VerdictClass verdict_class(const std::string& verdict) {
  if (verdict == kCrashReproduced || verdict == kWrongOutputReproduced) return VerdictClass::kBad;
  if (verdict == kNotReproduced) return VerdictClass::kGood;
  return VerdictClass::kUnknown;
}

std::string TriedRelease::verdict() const {
  if (flaky) return "flaky";
  return runs.empty() ? std::string() : runs.front().verdict;
}

VerdictClass TriedRelease::cls() const {
  return flaky ? VerdictClass::kUnknown : verdict_class(verdict());
}

namespace {

class Search {
 public:
  Search(const std::vector<std::string>& releases, const ReleaseRunFn& run)
      : releases_(releases), run_(run), tried_(releases.size()) {}

  // The verdict of release i (running it once when not tried yet).
  const TriedRelease& at(std::size_t i) {
    TriedRelease& t = tried_[i];
    if (t.runs.empty()) {
      t.version = releases_[i];
      t.runs.push_back(call(i, 1));
      order_.push_back(releases_[i]);
    }
    return t;
  }
  bool known(std::size_t i) { return at(i).cls() != VerdictClass::kUnknown; }

  // Runs release i a second time (once); true when it turned out flaky.
  bool confirm(std::size_t i) {
    TriedRelease& t = tried_[i];
    if (t.runs.size() >= 2) return t.flaky;
    t.runs.push_back(call(i, 2));
    t.flaky = t.runs[0].verdict != t.runs[1].verdict;
    return t.flaky;
  }

  // Every known release, in order, after searching between the known ends.
  void search() {
    std::size_t n = releases_.size();
    // The newest known release: from the newest down.
    std::optional<std::size_t> hi;
    for (std::size_t i = n; i-- > 0;)
      if (known(i)) {
        hi = i;
        break;
      }
    if (!hi) return;
    // The oldest known release below it: binary search for the first known one.
    std::size_t lo = *hi;
    std::size_t a = 0, b = *hi;  // the first known lies in [a, b]
    if (known(0)) b = 0;
    while (a < b) {
      std::size_t mid = a + (b - a) / 2;
      if (known(mid))
        b = mid;
      else
        a = mid + 1;
    }
    lo = a;
    segment(lo, *hi);
  }

  std::vector<TriedRelease>& tried() { return tried_; }
  std::vector<std::string>& order() { return order_; }
  int new_runs = 0, stored_runs = 0;

 private:
  ReleaseRun call(std::size_t i, int attempt) {
    ReleaseRun r = run_(releases_[i], attempt);
    if (r.verdict != kInstallFailed) ++(r.stored ? stored_runs : new_runs);
    return r;
  }

  void segment(std::size_t lo, std::size_t hi) {
    if (hi <= lo + 1) return;
    if (at(lo).verdict() == at(hi).verdict()) return;
    long l = static_cast<long>(lo), h = static_cast<long>(hi), mid = l + (h - l) / 2;
    // The known release nearest the middle, alternating above and below it.
    for (long d = 0; mid + d < h || mid - d > l; ++d) {
      for (long k : {mid + d, mid - d}) {
        if (k <= l || k >= h) continue;
        if (known(static_cast<std::size_t>(k))) {
          segment(lo, static_cast<std::size_t>(k));
          segment(static_cast<std::size_t>(k), hi);
          return;
        }
      }
    }
  }

  const std::vector<std::string>& releases_;
  const ReleaseRunFn& run_;
  std::vector<TriedRelease> tried_;
  std::vector<std::string> order_;
};

}  // namespace

BisectResult bisect_releases(const std::vector<std::string>& releases, const ReleaseRunFn& run) {
  BisectResult out;
  out.releases = releases;
  if (releases.empty()) return out;
  Search s(releases, run);
  // Search, confirm the releases either side of each change, and search again without the flaky
  // ones, until the changes stand (each round confirms at least one more release or stops).
  for (std::size_t round = 0; round <= releases.size(); ++round) {
    s.search();
    bool flaky = false, confirmed_any = false;
    std::optional<std::size_t> prev;
    for (std::size_t i = 0; i < releases.size(); ++i) {
      const TriedRelease& t = s.tried()[i];
      if (t.runs.empty() || t.cls() == VerdictClass::kUnknown) continue;
      if (prev && s.tried()[*prev].verdict() != t.verdict()) {
        for (std::size_t k : {*prev, i}) {
          if (s.tried()[k].runs.size() < 2) confirmed_any = true;
          flaky = s.confirm(k) || flaky;
        }
      }
      prev = i;
    }
    if (!flaky || !confirmed_any) break;
  }
  out.new_runs = s.new_runs;
  out.stored_runs = s.stored_runs;
  out.order = s.order();
  std::optional<std::size_t> prev;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    const TriedRelease& t = s.tried()[i];
    if (t.runs.empty()) continue;
    out.tried.push_back(t);
    if (t.cls() == VerdictClass::kUnknown) continue;
    if (t.cls() == VerdictClass::kBad && !out.first_bad) out.first_bad = t.version;
    if (prev && s.tried()[*prev].verdict() != t.verdict()) {
      VerdictChange c;
      c.before = s.tried()[*prev].version;
      c.after = t.version;
      c.from = s.tried()[*prev].verdict();
      c.to = t.verdict();
      for (std::size_t k = *prev + 1; k < i; ++k)
        if (!s.tried()[k].runs.empty()) c.gap.push_back(s.tried()[k].version);
      VerdictClass from = s.tried()[*prev].cls(), to = t.cls();
      if (from == VerdictClass::kGood && to == VerdictClass::kBad) out.regressed_in = t.version;
      if (from == VerdictClass::kBad && to == VerdictClass::kGood) out.fixed_in = t.version;
      out.changes.push_back(std::move(c));
    }
    prev = i;
  }
  if (prev) {
    out.newest_known = s.tried()[*prev].version;
    out.still_failing = s.tried()[*prev].cls() == VerdictClass::kBad;
  }
  // A fix followed by a regression: the fix no longer holds in the newest release.
  if (out.still_failing) out.fixed_in.reset();
  return out;
}

json BisectResult::to_json() const {
  auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(); };
  json tried_json = json::array();
  for (const auto& t : tried) {
    json runs = json::array();
    for (const auto& r : t.runs) {
      json rj = {{"verdict", r.verdict}, {"stored", r.stored}, {"duration_ms", r.duration_ms}};
      if (!r.step.empty()) rj["step"] = r.step;
      if (!r.signature.empty()) rj["signature"] = r.signature;
      if (!r.reason.empty()) rj["reason"] = r.reason;
      if (!r.message.empty()) rj["message"] = r.message;
      runs.push_back(rj);
    }
    tried_json.push_back(
        {{"version", t.version}, {"verdict", t.verdict()}, {"flaky", t.flaky}, {"runs", runs}});
  }
  json changes_json = json::array();
  for (const auto& c : changes)
    changes_json.push_back(
        {{"before", c.before}, {"after", c.after}, {"from", c.from}, {"to", c.to}, {"gap", c.gap}});
  std::optional<std::string> kernel = kernel_text();
  return {{"releases", releases},
          {"kernel", opt(kernel)},
          {"tried", tried_json},
          {"order", order},
          {"changes", changes_json},
          {"first_bad", opt(first_bad)},
          {"regressed_in", opt(regressed_in)},
          {"fixed_in", opt(fixed_in)},
          {"newest_known", opt(newest_known)},
          {"still_failing", still_failing},
          {"new_runs", new_runs},
          {"stored_runs", stored_runs}};
}

std::optional<std::string> kernel_release_text(const std::string& signature,
                                               const std::optional<std::string>& fixed_in,
                                               const std::optional<std::string>& regressed_in,
                                               const std::optional<std::string>& newest_known,
                                               bool still_failing) {
  auto k = exec::parse_missing_kernel_signature(signature);
  if (!k || !newest_known) return std::nullopt;
  std::string kernel = "kernel " + k->op + "(" + std::to_string(k->opset) + ")";
  for (std::size_t i = 0; i < k->types.size(); ++i) kernel += (i ? ", " : " for ") + k->types[i];
  if (still_failing)
    return kernel + (regressed_in ? " removed in " + *regressed_in
                                  : " missing in every release tried up to " + *newest_known);
  if (fixed_in) return kernel + " added in " + *fixed_in;
  return std::nullopt;
}

std::optional<std::string> BisectResult::kernel_text() const {
  for (const auto& tr : tried)
    for (const auto& run : tr.runs)
      if (auto text = kernel_release_text(run.signature, fixed_in, regressed_in, newest_known,
                                          still_failing))
        return text;
  return std::nullopt;
}

}  // namespace convfail::repro

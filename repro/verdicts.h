// The verdicts of a re-execution, as stored in repro_runs.verdict: the one spelling of each, for
// repro, which writes them, and for the modules that read them as plain data (the classifier's
// execution evidence, the report's verdict columns, the command line). Header-only vocabulary:
// every module may include this file of repro (ARCHITECTURE.md, include rule).
#pragma once

namespace convfail::repro {

inline constexpr const char* kCrashReproduced = "crash_reproduced";
inline constexpr const char* kWrongOutputReproduced = "wrong_output_reproduced";
inline constexpr const char* kNotReproduced = "not_reproduced";
inline constexpr const char* kNotRunnable = "not_runnable";

// Every verdict, in that order.
inline constexpr const char* kVerdicts[] = {kCrashReproduced, kWrongOutputReproduced,
                                            kNotReproduced, kNotRunnable};

}  // namespace convfail::repro

#include "config.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

#include "model.h"

namespace {

bool parse_int(const char* text, long long min, long long max, long long& out) {
    if (text == nullptr || *text == '\0') return false;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) return false;
    out = v;
    return true;
}

// A finite decimal in [min, max].
bool parse_double(const char* text, double min, double max, double& out) {
    if (text == nullptr || *text == '\0') return false;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (errno != 0 || *end != '\0' || !(v >= min && v <= max)) return false;
    out = v;
    return true;
}

bool parse_byte_list(const std::string& text, std::vector<std::size_t>& out) {
    out.clear();
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        long long v = 0;
        if (!parse_int(text.substr(start, comma - start).c_str(), 1, 1LL << 32, v)) return false;
        out.push_back(static_cast<std::size_t>(v));
        start = comma + 1;
    }
    return !out.empty();
}

// Sets a named preset's model shape. An unknown name changes nothing; the flag pass rejects it.
void apply_preset(const std::string& name, Config& cfg) {
    if (name == "tiny") {
        cfg.hidden = 256, cfg.layers = 4, cfg.heads = 8, cfg.key_dim = 64, cfg.value_dim = 128;
        cfg.intermediate = 512;
    } else if (name == "small") {
        cfg.hidden = 512, cfg.layers = 8, cfg.heads = 8, cfg.key_dim = 128, cfg.value_dim = 256;
        cfg.intermediate = 1024;
    }
}

// Reads an optional non-negative integer environment variable.
bool env_int(const char* name, int& out, std::string& error) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return true;
    long long v = 0;
    if (!parse_int(text, 0, 1 << 20, v)) {
        error = std::string(name) + " must be a non-negative integer, got '" + text + "'";
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

bool parse_env(Config& cfg, std::string& error) {
    const char* profile = std::getenv("TPE_PHASE_PROFILE");
    cfg.phase_profile = profile != nullptr && std::strcmp(profile, "1") == 0;
    return env_int("TPE_OVERLAP_SLICES", cfg.slices.forced, error) &&
           env_int("TPE_MIN_ROWS_PER_SLICE", cfg.slices.min_rows_per_slice, error) &&
           env_int("TPE_OVERLAP_CEILING", cfg.slices.ceiling, error);
}

// One product of shape values the engine allocates (as floats) or passes as an int count.
struct ShapeProduct {
    const char* what;
    std::vector<std::size_t> factors;
    std::size_t limit;
    const char* limit_name;
};

// Fails with one sentence when `p`'s product overflows size_t or exceeds its limit.
bool check_product(const ShapeProduct& p, std::string& error) {
    std::size_t product = 1;
    bool overflow = false;
    std::string shown;
    for (const std::size_t factor : p.factors) {
        overflow = overflow || __builtin_mul_overflow(product, factor, &product);
        shown += (shown.empty() ? "" : " x ") + std::to_string(factor);
    }
    if (!overflow && product <= p.limit) return true;
    error = std::string("shape too large: ") + p.what + " = " + shown + " exceeds " + p.limit_name;
    return false;
}

// Every size the model allocates and every count it hands to MPI, checked before anything is
// allocated: a product that wraps would allocate too little and write past it.
bool check_shape(const Config& cfg, int world, std::string& error) {
    constexpr std::size_t kInt = INT_MAX;
    constexpr std::size_t kFloats = SIZE_MAX / sizeof(float);
    const std::size_t local_heads = cfg.heads / world;
    const std::size_t head_cols = 2 * static_cast<std::size_t>(cfg.key_dim) + cfg.value_dim + kGateCols;
    const std::size_t local_inter = cfg.intermediate / world;
    const std::size_t positions = static_cast<std::size_t>(cfg.rows) + cfg.new_tokens;
    const std::size_t rows = cfg.rows;
    const std::size_t hidden = cfg.hidden;
    const ShapeProduct products[] = {
        {"rows x hidden (an MPI all-reduce count)", {rows, hidden}, kInt, "INT_MAX"},
        {"per-rank heads x head columns", {local_heads, head_cols}, kInt, "INT_MAX"},
        {"rows x per-rank heads x head columns", {rows, local_heads, head_cols}, kFloats, "the address space"},
        {"hidden x per-rank heads x head columns", {hidden, local_heads, head_cols}, kFloats, "the address space"},
        {"hidden x 2 x per-rank intermediate", {hidden, 2, local_inter}, kFloats, "the address space"},
        {"rows x 2 x per-rank intermediate", {rows, 2, local_inter}, kFloats, "the address space"},
        {"per-rank heads x positions x key/value width",
         {local_heads, positions, static_cast<std::size_t>(std::max(cfg.key_dim, cfg.value_dim))}, kFloats,
         "the address space"},
        {"per-rank heads x key width x value width",
         {local_heads, static_cast<std::size_t>(cfg.key_dim), static_cast<std::size_t>(cfg.value_dim)}, kFloats,
         "the address space"},
    };
    for (const ShapeProduct& p : products) {
        if (!check_product(p, error)) return false;
    }
    return true;
}

bool validate(const Config& cfg, int world, std::string& error) {
    if (cfg.pattern.empty() || cfg.pattern.find_first_not_of("LF") != std::string::npos) {
        error = "--pattern must be a non-empty string of 'L' and 'F'";
    } else if (cfg.heads % world != 0) {
        error = "--heads " + std::to_string(cfg.heads) + " is not divisible by " +
                std::to_string(world) + " ranks";
    } else if (cfg.intermediate % world != 0) {
        error = "--intermediate " + std::to_string(cfg.intermediate) + " is not divisible by " +
                std::to_string(world) + " ranks";
    }
    return error.empty() && check_shape(cfg, world, error);
}

// The link is emulated only when both of its flags are given: a fixed term without a bandwidth
// (or the reverse) is a half-stated model, refused rather than completed with a guess.
bool check_link(bool alpha_given, bool gbps_given, Config& cfg, std::string& error) {
    if (alpha_given != gbps_given) {
        error = "--link-alpha-us and --link-gbps must be given together";
        return false;
    }
    cfg.link.enabled = alpha_given;
    return true;
}

}  // namespace

const char* usage_text() {
    return "usage: tp-engine [--preset tiny|small] [--rows N] [--new N] [--seed N]\n"
           "                 [--hidden N] [--layers N] [--pattern STR] [--heads N]\n"
           "                 [--key-dim N] [--value-dim N] [--intermediate N]\n"
           "                 [--prefill-reps N] [--link-alpha-us US --link-gbps GBPS]\n"
           "       tp-engine --allreduce-bench [--bytes N,N,...] [--link-alpha-us US --link-gbps GBPS]\n"
           "  --pattern   layer kinds cycled over --layers: L gated-delta, F full attention\n"
           "              (default LLLF)\n"
           "  --prefill-reps N  one warm prefill, then N timed; the median is reported (default 1)\n"
           "  --link-alpha-us, --link-gbps  emulate a link: every all-reduce also costs\n"
           "              alpha + bytes / (GBPS * 1e9 B/s), alpha blocking, bytes overlappable\n"
           "  env: TPE_OVERLAP_SLICES, TPE_MIN_ROWS_PER_SLICE, TPE_OVERLAP_CEILING,\n"
           "       TPE_PHASE_PROFILE=1\n";
}

bool parse_config(int argc, char** argv, int world, Config& cfg, std::string& error) {
    using Setter = std::function<bool(const char*)>;
    bool alpha_given = false;
    bool gbps_given = false;
    auto int_flag = [](int& field, long long min) {
        return Setter([&field, min](const char* v) {
            long long x = 0;
            if (!parse_int(v, min, 1 << 24, x)) return false;
            field = static_cast<int>(x);
            return true;
        });
    };
    const std::map<std::string, Setter> valued = {
        {"--preset", [](const char* v) { return std::strcmp(v, "tiny") == 0 || std::strcmp(v, "small") == 0; }},
        {"--rows", int_flag(cfg.rows, 1)},
        {"--new", int_flag(cfg.new_tokens, 0)},
        {"--hidden", int_flag(cfg.hidden, 1)},
        {"--layers", int_flag(cfg.layers, 1)},
        {"--heads", int_flag(cfg.heads, 1)},
        {"--key-dim", int_flag(cfg.key_dim, 1)},
        {"--value-dim", int_flag(cfg.value_dim, 1)},
        {"--intermediate", int_flag(cfg.intermediate, 1)},
        {"--pattern", [&cfg](const char* v) { cfg.pattern = v; return true; }},
        {"--seed", [&cfg](const char* v) {
             long long x = 0;
             if (!parse_int(v, 0, INT64_MAX, x)) return false;
             cfg.seed = static_cast<std::uint64_t>(x);
             return true;
         }},
        {"--bytes", [&cfg](const char* v) { return parse_byte_list(v, cfg.bench_bytes); }},
        {"--prefill-reps", int_flag(cfg.prefill_reps, 1)},
        {"--link-alpha-us", [&](const char* v) { return alpha_given = parse_double(v, 0.0, 1e7, cfg.link.alpha_us); }},
        // Above 0 (no infinite link) and at most 1e4 GB/s.
        {"--link-gbps", [&](const char* v) { return gbps_given = parse_double(v, 1e-6, 1e4, cfg.link.gbps); }},
    };

    // The preset is applied first so that explicit shape flags override it wherever they appear.
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--preset") == 0) apply_preset(argv[i + 1], cfg);
    }
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            cfg.help = true;
            continue;
        }
        if (flag == "--allreduce-bench") {
            cfg.allreduce_bench = true;
            continue;
        }
        const auto it = valued.find(flag);
        if (it == valued.end()) {
            error = "unknown flag '" + flag + "'";
            return false;
        }
        if (i + 1 >= argc) {
            error = "flag " + flag + " needs a value";
            return false;
        }
        if (!it->second(argv[++i])) {
            error = "invalid value '" + std::string(argv[i]) + "' for " + flag;
            return false;
        }
    }
    return check_link(alpha_given, gbps_given, cfg, error) && parse_env(cfg, error) && validate(cfg, world, error);
}

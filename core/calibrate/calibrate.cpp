#include "calibrate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/estimate.h"
#include "resolve/resolve.h"

namespace tessera::core {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& message) {
    Diagnostic d;
    d.path = path;
    d.message = message;
    throw SpecError(std::move(d));
}

// One run, ready to price at any parameters: its cost input and what it measured.
struct Prepared {
    CostInput input;
    double measuredStep = 0;
};

// The problem in coordinates u in [0, 1] per parameter.
class Problem {
public:
    Problem(std::vector<Prepared> runs, std::vector<const CalibrationParameter*> params)
        : m_runs(std::move(runs)), m_params(std::move(params)) {}

    double measured(std::size_t i) const { return m_runs[i].measuredStep; }
    double value(std::size_t j, double u) const {
        const CalibrationParameter& p = *m_params[j];
        return p.low + u * (p.high - p.low);
    }
    double coordinate(std::size_t j, double value) const {
        const CalibrationParameter& p = *m_params[j];
        return std::clamp((value - p.low) / (p.high - p.low), 0.0, 1.0);
    }
    // The priced step of run i at u.
    double step(std::size_t i, const std::vector<double>& u) const {
        CostInput in = m_runs[i].input;
        for (std::size_t j = 0; j < u.size(); ++j) in.device.*(m_params[j]->field) = value(j, u[j]);
        return evaluate(in).stepSeconds;
    }
    double residual(std::size_t i, const std::vector<double>& u) const {
        return std::log(step(i, u) / m_runs[i].measuredStep);
    }
    // The residuals of the runs in `use` and their Jacobian (rows: runs; forward or
    // backward differences, whichever stays in range).
    void linearise(const std::vector<std::size_t>& use, const std::vector<double>& u, std::vector<double>& r,
                   std::vector<std::vector<double>>& J) const {
        constexpr double h = 1e-4;
        r.assign(use.size(), 0);
        J.assign(use.size(), std::vector<double>(u.size(), 0));
        for (std::size_t a = 0; a < use.size(); ++a) r[a] = residual(use[a], u);
        for (std::size_t j = 0; j < u.size(); ++j) {
            std::vector<double> v = u;
            const double step = v[j] + h <= 1 ? h : -h;
            v[j] += step;
            for (std::size_t a = 0; a < use.size(); ++a) J[a][j] = (residual(use[a], v) - r[a]) / step;
        }
    }
    // Bounded least squares over the runs in `use`, from u.
    std::vector<double> fit(const std::vector<std::size_t>& use, std::vector<double> u) const {
        const std::size_t k = u.size();
        auto cost = [&](const std::vector<double>& x) {
            double c = 0;
            for (std::size_t i : use) c += std::pow(residual(i, x), 2);
            return c;
        };
        std::vector<double> r;
        std::vector<std::vector<double>> J;
        double lambda = 1e-3, c = cost(u);
        for (int iteration = 0; iteration < 200; ++iteration) {
            linearise(use, u, r, J);
            std::vector<std::vector<double>> A(k, std::vector<double>(k, 0));
            std::vector<double> g(k, 0);
            for (std::size_t a = 0; a < use.size(); ++a)
                for (std::size_t i = 0; i < k; ++i) {
                    g[i] -= J[a][i] * r[a];
                    for (std::size_t j = 0; j < k; ++j) A[i][j] += J[a][i] * J[a][j];
                }
            bool improved = false;
            for (int tries = 0; tries < 12 && !improved; ++tries) {
                std::vector<std::vector<double>> M = A;
                for (std::size_t i = 0; i < k; ++i) M[i][i] += lambda * (A[i][i] + 1e-9);
                std::vector<double> d = solve(M, g), x = u;
                for (std::size_t i = 0; i < k; ++i) x[i] = std::clamp(u[i] + d[i], 0.0, 1.0);
                const double cx = cost(x);
                if (cx < c) {
                    const double gain = c - cx;
                    u = x, c = cx, lambda = std::max(lambda / 3, 1e-9), improved = true;
                    if (gain < 1e-14 * std::max(c, 1e-30) || gain < 1e-16) return u;
                } else {
                    lambda *= 4;
                }
            }
            if (!improved) break;
        }
        return u;
    }

private:
    static std::vector<double> solve(std::vector<std::vector<double>> M, std::vector<double> b) {
        const std::size_t n = b.size();
        for (std::size_t c = 0; c < n; ++c) {
            std::size_t pivot = c;
            for (std::size_t r = c + 1; r < n; ++r)
                if (std::abs(M[r][c]) > std::abs(M[pivot][c])) pivot = r;
            std::swap(M[c], M[pivot]), std::swap(b[c], b[pivot]);
            if (std::abs(M[c][c]) < 1e-300) continue;
            for (std::size_t r = 0; r < n; ++r) {
                if (r == c) continue;
                const double f = M[r][c] / M[c][c];
                for (std::size_t j = c; j < n; ++j) M[r][j] -= f * M[c][j];
                b[r] -= f * b[c];
            }
        }
        std::vector<double> x(n, 0);
        for (std::size_t i = 0; i < n; ++i) x[i] = std::abs(M[i][i]) < 1e-300 ? 0 : b[i] / M[i][i];
        return x;
    }

    std::vector<Prepared> m_runs;
    std::vector<const CalibrationParameter*> m_params;
};

// How much a parameter moves the runs' steps over its whole range before it counts:
// a log-step slope of 1e-4 is a hundredth of a per cent across the range.
constexpr double kMovesSteps = 1e-4;
// A parameter whose effect is this close to a combination of the others' is not told apart.
constexpr double kTellsApart = 0.02;

}  // namespace

Calibration calibrate(const RunsFile& file, const std::vector<std::string>& fit) {
    const auto& all = calibrationParameters();
    std::vector<const CalibrationParameter*> params;
    for (const std::string& key : fit) {
        auto it = std::find_if(all.begin(), all.end(), [&](const CalibrationParameter& p) { return p.key == key; });
        if (it == all.end()) {
            std::string keys;
            for (const auto& p : all) keys += (keys.empty() ? "" : ", ") + std::string(p.key);
            refuse("--fit", "unknown parameter '" + key + "'; the parameters are: " + keys);
        }
        if (std::find(params.begin(), params.end(), &*it) != params.end()) refuse("--fit", "'" + key + "' is named twice");
        params.push_back(&*it);
    }
    if (fit.empty())
        for (const auto& p : all) params.push_back(&p);
    if (file.runs.empty()) refuse("runs", file.path + " lists no runs");

    // Each run priced as its scenario states it, with the built-in efficiencies.
    std::vector<Prepared> runs;
    std::string device;
    for (const MeasuredRun& m : file.runs) {
        if (m.scenario.cluster.calibration)
            refuse("runs", m.label + ": cluster.calibration: a run to calibrate on is priced with the built-in "
                                     "efficiencies; remove it from the scenario");
        for (const CalibrationParameter* q : params)
            if (q->key == "rank_speed_spread" && m.scenario.cluster.rank_speed_spread)
                refuse("runs", m.label + ": cluster.rank_speed_spread: the fit chooses it; remove it from the scenario, "
                                         "or leave it out of --fit");
        const ResolvedScenario r = resolve(m.scenario);
        Prepared p{costInput(r), 0};
        if (device.empty()) device = p.input.device.name;
        if (p.input.device.name != device)
            refuse("runs", m.label + " runs on " + p.input.device.name + " and an earlier run on " + device +
                               ": a calibration is one device's; calibrate each device's runs apart");
        Estimate e;
        evaluate(p.input, &e);
        const double tokensPerStep = e.tokensPerSecond * e.stepSeconds;
        p.measuredStep = m.stepSeconds ? *m.stepSeconds : tokensPerStep / *m.tokensPerSecond;
        runs.push_back(std::move(p));
    }
    const std::size_t n = runs.size(), k = params.size();
    auto names = [&](const std::vector<std::size_t>& which) {
        std::string s;
        for (std::size_t j : which) s += (s.empty() ? "" : ", ") + std::string(params[j]->key);
        return s;
    };
    std::vector<double> builtIn(k);
    for (std::size_t j = 0; j < k; ++j) builtIn[j] = runs.front().input.device.*(params[j]->field);
    Problem problem(std::move(runs), params);
    std::vector<double> u0(k);
    for (std::size_t j = 0; j < k; ++j) u0[j] = problem.coordinate(j, builtIn[j]);

    // What the runs can determine: each parameter must move some run's step, and move
    // the steps otherwise than the parameters before it do (Gram-Schmidt on the
    // Jacobian's columns, in the order asked).
    std::vector<std::size_t> everyRun(n);
    std::iota(everyRun.begin(), everyRun.end(), 0);
    {
        std::vector<double> r;
        std::vector<std::vector<double>> J;
        problem.linearise(everyRun, u0, r, J);
        std::vector<std::vector<double>> basis;
        std::vector<std::size_t> still, alike, determined;
        for (std::size_t j = 0; j < k; ++j) {
            std::vector<double> col(n);
            for (std::size_t i = 0; i < n; ++i) col[i] = J[i][j];
            const double norm = std::sqrt(std::inner_product(col.begin(), col.end(), col.begin(), 0.0));
            if (norm < kMovesSteps) {
                still.push_back(j);
                continue;
            }
            std::vector<double> rest = col;
            for (const auto& b : basis) {
                const double dot = std::inner_product(rest.begin(), rest.end(), b.begin(), 0.0);
                for (std::size_t i = 0; i < n; ++i) rest[i] -= dot * b[i];
            }
            const double left = std::sqrt(std::inner_product(rest.begin(), rest.end(), rest.begin(), 0.0));
            if (left < kTellsApart * norm) {
                alike.push_back(j);
                continue;
            }
            for (double& x : rest) x /= left;
            basis.push_back(std::move(rest));
            determined.push_back(j);
        }
        std::string why;
        if (!still.empty()) why += names(still) + ": no run's step moves with " + (still.size() > 1 ? "them" : "it") + ". ";
        if (!alike.empty())
            why += names(alike) + ": the runs move " + (alike.size() > 1 ? "them" : "it") +
                   " only as the parameters named before do together. ";
        const std::size_t most = n > 1 ? n - 1 : 0;
        if (why.empty() && k > most)
            why = std::to_string(n) + " runs determine at most " + std::to_string(most) +
                  " parameters with a leave-one-out check, and " + std::to_string(k) + " are asked. ";
        if (!why.empty()) {
            std::vector<std::size_t> could(determined.begin(), determined.begin() + std::min(determined.size(), most));
            refuse("--fit", why + (could.empty() ? std::string("These runs determine no parameter: measure more runs that differ "
                                                                "in what the parameters price")
                                                  : "These runs can determine: --fit " + [&] {
                                                        std::string s;
                                                        for (std::size_t j : could) s += (s.empty() ? "" : ",") + std::string(params[j]->key);
                                                        return s;
                                                    }()));
        }
    }

    Calibration out;
    const std::vector<double> u = problem.fit(everyRun, u0);
    for (std::size_t j = 0; j < k; ++j) {
        out.fitted.emplace_back(params[j]->key);
        out.builtIn.push_back(builtIn[j]);
        out.value.push_back(problem.value(j, u[j]));
        out.spec.*(params[j]->slot) = out.value.back();
    }
    for (std::size_t i = 0; i < n; ++i) {
        CalibratedRun c;
        c.label = file.runs[i].label;
        c.before = problem.step(i, u0);
        c.after = problem.step(i, u);
        c.measuredStep = problem.measured(i);
        std::vector<std::size_t> others;
        for (std::size_t a = 0; a < n; ++a)
            if (a != i) others.push_back(a);
        c.leftOut = problem.step(i, problem.fit(others, u));
        out.meanBefore += std::abs(c.before / c.measuredStep - 1) / double(n);
        out.meanAfter += std::abs(c.after / c.measuredStep - 1) / double(n);
        out.leaveOneOut += std::abs(c.leftOut / c.measuredStep - 1) / double(n);
        out.runs.push_back(std::move(c));
    }
    out.spec.device = device;
    out.spec.runs = std::int64_t(n);
    out.spec.leave_one_out_percent = std::round(out.leaveOneOut * 1e4) / 100;
    out.spec.fitted_on = file.path;
    return out;
}

}  // namespace tessera::core

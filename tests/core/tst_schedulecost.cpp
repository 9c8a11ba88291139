// The frontier schedules in the cost model: what ZB-H1 and DualPipe change in a
// priced strategy's memory and step, against 1F1B on the same strategy, and that the
// simulation a view draws is the one the estimate priced.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "costhelpers.h"
#include "io/scenarioio.h"
#include "model/estimate.h"
#include "model/evaluation.h"
#include "model/stagelayers.h"
#include "pipeline/closedform.h"
#include "plan/planner.h"
#include "pipeline/schedule.h"
#include "report/estimatereport.h"

using namespace tessera::core;
using namespace tessera::testing;

namespace {

// A MoE model on 64 H100s with expert parallelism, so there is all-to-all for the
// DualPipe pairs to hide: 8 stages x 8-way data x 8-way experts.
std::string moe(const std::string& schedule, int mbn = 32) {
    const bool v = schedule == "zbv" || schedule == "dualpipev" || schedule == "v-half" || schedule == "v-min";  // a V
    return "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: 64}\n"
           "exec: {dp: 8, tp: 1, pp: 8, ep: 8, seq_length: 4096, micro_batch_size: 1, micro_batch_num: " +
           std::to_string(mbn) + ", optimizer_parallel: true, pp_schedule: " + schedule + (v ? ", vpp: 2" : "") + "}\n";
}

Estimate estimateYaml(const std::string& yaml) { return estimate(resolveYaml(yaml)); }

double sumBreakdown(const Estimate& e) {
    const TimeBreakdown& b = e.breakdown;
    return b.compute + b.recompute + b.communicationExposed + b.bubble + b.optimizer;
}

}  // namespace

class TestScheduleCost : public QObject {
    Q_OBJECT
private slots:
    // ZB-H1 keeps 1F1B's forwards in flight and adds what stage s's s held-back
    // weight gradients keep; its bubble is (p-1)(F+B-2W) against 1F1B's (p-1)(F+B)
    // (the DualPipe README's rows, B the whole backward), so 2(p-1)·W at most.
    void zeroBubbleAgainst1F1B() {
        const Estimate one = estimateYaml(moe("1f1b")), zb = estimateYaml(moe("zb-h1"));
        QCOMPARE(zb.stages.size(), one.stages.size());
        const int p = int(one.stages.size());
        for (int s = 0; s < p; ++s) {
            QCOMPARE(zb.stages[s].inFlightPerChunk, one.stages[s].inFlightPerChunk);
            QCOMPARE(zb.stages[s].memory.parameters, one.stages[s].memory.parameters);
            if (s == 0) QCOMPARE(zb.stages[s].memory.activations, one.stages[s].memory.activations);  // holds nothing back
            else QVERIFY(zb.stages[s].memory.activations > one.stages[s].memory.activations);
        }
        QVERIFY2(zb.stepSeconds < one.stepSeconds, qPrintable(QString("zb-h1 %1 s, 1f1b %2 s").arg(zb.stepSeconds).arg(one.stepSeconds)));
        QVERIFY(zb.breakdown.bubble < one.breakdown.bubble);
        double maxW = 0;
        for (const StageEstimate& s : one.stages) maxW = std::max(maxW, s.time.weightGrad);
        QVERIFY(one.stepSeconds - zb.stepSeconds <= 2 * (p - 1) * maxW * (1 + 1e-9));
        QVERIFY(std::abs(sumBreakdown(zb) - zb.stepSeconds) <= 1e-9 * zb.stepSeconds);
    }

    // DualPipe: each device holds its own stage and the mirrored one (2x parameters
    // for equal stages, the README's table), p - s + s + 1 = p + 1 stage-forwards in
    // flight, and its pairs hide exposed all-to-all behind compute.
    void dualPipeAgainst1F1B() {
        const Estimate one = estimateYaml(moe("1f1b")), dual = estimateYaml(moe("dualpipe"));
        const int p = int(one.stages.size());
        QCOMPARE(int(dual.stages.size()), p);
        for (int r = 0; r < p; ++r) {
            const StageEstimate& d = dual.stages[r];
            QVERIFY(d.hasMirror);
            QCOMPARE(d.layers, one.stages[r].layers + one.stages[p - 1 - r].layers);
            QCOMPARE(d.parameters, one.stages[r].parameters + one.stages[p - 1 - r].parameters);
            QCOMPARE(d.memory.parameters, one.stages[r].memory.parameters + one.stages[p - 1 - r].memory.parameters);
            QCOMPARE(d.inFlightPerChunk, (std::vector<std::int64_t>{p - r, r + 1}));
            QCOMPARE(d.inFlightMicroBatches, std::int64_t(p + 1));
            QCOMPARE(d.time.forward, one.stages[r].time.forward);
            QCOMPARE(d.mirror.forward, one.stages[p - 1 - r].time.forward);
        }
        QVERIFY(dual.perDeviceMaxParameters > one.perDeviceMaxParameters);
        // Each device's busy time is its work less what its pairs hid; the busiest one
        // sets the compute the step's breakdown shows.
        const double m = 32;
        double busiest = 0;
        for (const StageEstimate& d : dual.stages) {
            QVERIFY(d.hiddenBySchedule > 0);
            busiest = std::max(busiest, m / 2 * (d.time.perMicroBatch() + d.mirror.perMicroBatch()) - d.hiddenBySchedule);
        }
        double tail = -1, tailDp = 0;  // the device whose gradient reduction and step end last
        for (const StageEstimate& d : dual.stages) {
            const double t = d.time.dpExposed + d.mirror.dpExposed + d.time.optimizer + d.mirror.optimizer;
            if (t > tail) tail = t, tailDp = d.time.dpExposed + d.mirror.dpExposed;
        }
        const TimeBreakdown& b = dual.breakdown;
        QVERIFY(std::abs(b.compute + b.recompute + b.communicationExposed - tailDp - busiest) <= 1e-9 * busiest);
        QVERIFY(std::abs(dual.stepSeconds - (busiest + b.bubble + tail)) <= 1e-9 * dual.stepSeconds);
        QVERIFY2(dual.stepSeconds < one.stepSeconds,
                 qPrintable(QString("dualpipe %1 s, 1f1b %2 s").arg(dual.stepSeconds).arg(one.stepSeconds)));
        QVERIFY(dual.breakdown.bubble < one.breakdown.bubble);
        QVERIFY(dual.breakdown.communicationExposed < one.breakdown.communicationExposed);
        QVERIFY(std::abs(sumBreakdown(dual) - dual.stepSeconds) <= 1e-9 * dual.stepSeconds);
        QCOMPARE(dual.tokensPerSecond * dual.stepSeconds, one.tokensPerSecond * one.stepSeconds);  // the same batch
    }

    // The V schedules: stage s holds chunk s and chunk 2p-1-s of the model, so stage 0
    // runs both the embedding and the output head (one table when they are tied), the
    // bottom of the V sends nothing to itself, and each stage keeps 1F1B's p stages'
    // worth in flight (zbv: [2p-1-s, s+1] half-stage chunks) or PP+1 (dualpipev: [2p-s, s+1]).
    void vShapeAgainst1F1B_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("zbv") << "zbv";
        QTest::newRow("dualpipev") << "dualpipev";
    }
    void vShapeAgainst1F1B() {
        QFETCH(QString, schedule);
        const Estimate one = estimateYaml(moe("1f1b")), v = estimateYaml(moe(schedule.toStdString()));
        const int p = int(one.stages.size());
        QCOMPARE(int(v.stages.size()), p);
        for (int s = 0; s < p; ++s) {
            const std::int64_t first = schedule == "zbv" ? 2 * p - 1 - s : 2 * p - s;
            QCOMPARE(v.stages[s].inFlightPerChunk, (std::vector<std::int64_t>{first, s + 1}));
            QVERIFY(!v.stages[s].hasMirror);
            QCOMPARE(v.stages[s].layers, one.stages[s].layers);  // 32 layers over 16 chunks: 4 per stage either way
        }
        // Stage 0 holds the embedding and the output head; the middle stages hold 1F1B's.
        QCOMPARE(v.stages[0].parameters, one.stages[0].parameters + one.stages[p - 1].parameters - one.stages[1].parameters);
        QCOMPARE(v.stages[1].parameters, one.stages[1].parameters);
        QCOMPARE(v.perDeviceMaxParameters, v.stages[0].parameters);
        QVERIFY(v.breakdown.bubble < one.breakdown.bubble);
        QVERIFY(std::abs(sumBreakdown(v) - v.stepSeconds) <= 1e-9 * v.stepSeconds);
        QCOMPARE(v.tokensPerSecond * v.stepSeconds, one.tokensPerSecond * one.stepSeconds);
        // The layers in model order: stage 0's chunk 1 runs the model's last four.
        const StagedLayers layers = stagedLayers(resolveYaml(moe(schedule.toStdString())));
        QCOMPARE(layers.stages[0].back().layer, std::int64_t(31));
        QCOMPARE(layers.stages[0].back().chunk, 1);
        QCOMPARE(layers.stages[std::size_t(p - 1)].front().layer, std::int64_t(2 * (p - 1)));     // chunk 0 at position p-1
        QCOMPARE(layers.stages[std::size_t(p - 1)].back().layer, std::int64_t(2 * p + 1));        // chunk 1 at position p
    }

    // The layer strip's layers per device: its own stage's, then the mirrored stage's
    // as chunk 1, as many as the estimate's row counts.
    void dualPipeLayersPerDevice() {
        const ResolvedScenario r = resolveYaml(moe("dualpipe")), one = resolveYaml(moe("1f1b"));
        const StagedLayers dual = stagedLayers(r), single = stagedLayers(one);
        const Estimate e = estimate(r);
        const std::size_t p = single.stages.size();
        QCOMPARE(dual.stages.size(), p);
        for (std::size_t d = 0; d < p; ++d) {
            QCOMPARE(std::int64_t(dual.stages[d].size()), e.stages[d].layers);
            const auto& own = single.stages[d];
            const auto& mirror = single.stages[p - 1 - d];
            QCOMPARE(dual.stages[d].size(), own.size() + mirror.size());
            for (std::size_t i = 0; i < own.size(); ++i) QCOMPARE(dual.stages[d][i].layer, own[i].layer);
            for (std::size_t i = 0; i < mirror.size(); ++i) {
                QCOMPARE(dual.stages[d][own.size() + i].layer, mirror[i].layer);
                QCOMPARE(dual.stages[d][own.size() + i].chunk, 1);
            }
        }
    }

    // The activations DualPipe reports are the simulation's peak over time, which for
    // equal stages is p + 1 stage-forwards' worth: equal to (p+1)/p of 1F1B's stage 0.
    void dualPipeActivationsFromTheSimulation() {
        const Estimate one = estimateYaml(moe("1f1b")), dual = estimateYaml(moe("dualpipe"));
        const int p = int(one.stages.size());
        // A middle device: its own and its mirror stage are both plain body stages, so
        // each stage-forward keeps what 1F1B's middle stage keeps per micro-batch.
        const int r = p / 2 - 1;
        const double perForward = double(one.stages[r].memory.activations) / double(one.stages[r].inFlightMicroBatches);
        QVERIFY(relative(double(dual.stages[r].memory.activations), (p + 1) * perForward) <= 0.02);
    }

    // ZB-H2 holds 2p-1 micro-batches on stage 0 (Qi et al. 2024 Table 1) for a bubble of
    // (p-1)(F+B-2W), but its stages run apart: only with the optimizer post-validated
    // does a stage start its next step before the last one ends. Without, the step is
    // the last event's end plus the reduction and step, like every other schedule.
    void zeroBubbleH2NeedsPostValidation() {
        auto with = [](const std::string& schedule) {
            std::string y = moe(schedule);
            y.replace(y.find("pp_schedule: " + schedule), 13 + schedule.size(),
                      "pp_schedule: " + schedule + ", optimizer_post_validation: true");
            return y;
        };
        const Estimate h1 = estimateYaml(moe("zb-h1")), h2 = estimateYaml(moe("zb-h2"));
        const Evaluation ev = evaluateScenario(parseScenario(with("zb-h2"), "t.yaml", Format::Yaml, ""));
        const Estimate& pv = ev.estimate;
        const int p = int(h2.stages.size());
        for (int s = 0; s < p; ++s) {
            QCOMPARE(h2.stages[s].inFlightPerChunk, std::vector<std::int64_t>{std::min(2 * (p - s) - 1, 32)});
            QCOMPARE(pv.stages[s].memory.activations, h2.stages[s].memory.activations);
        }
        QVERIFY(h2.stages[0].memory.activations > h1.stages[0].memory.activations);
        // Post-validated: each stage's span, then its own reduction and step, the longest.
        double step = 0, last = 0;
        for (int s = 0; s < p; ++s) {
            const StageTime& t = pv.stages[s].time;
            step = std::max(step, ev.pipeline.span[std::size_t(s)] + t.dpExposed + t.optimizer);
            last = std::max(last, ev.pipeline.makespan);
        }
        QVERIFY2(relative(pv.stepSeconds, step) <= 1e-9, qPrintable(QString("%1 against %2").arg(pv.stepSeconds).arg(step)));
        QVERIFY(pv.stepIsStageSpan && !h2.stepIsStageSpan);
        QVERIFY(relative(pv.lastStageEnd, last) <= 1e-9 && relative(h2.lastStageEnd, last) <= 1e-9);
        QVERIFY2(pv.stepSeconds < h2.stepSeconds, qPrintable(QString("%1 against %2").arg(pv.stepSeconds).arg(h2.stepSeconds)));
        QVERIFY2(pv.stepSeconds < h1.stepSeconds, qPrintable(QString("zb-h2 %1, zb-h1 %2").arg(pv.stepSeconds).arg(h1.stepSeconds)));
        QVERIFY(relative(sumBreakdown(pv), pv.stepSeconds) <= 1e-9 && relative(sumBreakdown(h2), h2.stepSeconds) <= 1e-9);
        auto says = [](const Estimate& e, const std::string& what) {
            for (const std::string& line : keyFigures(e))
                if (line.find(what) != std::string::npos) return true;
            return false;
        };
        QVERIFY(says(pv, "zb-h2 with optimizer post-validation: the step is the longest stage's span"));
        QVERIFY(says(h2, "zb-h2 without optimizer post-validation: the step waits for its last stage"));
        // Stated under a schedule whose first stage spans the step: priced the same, and said.
        const Estimate one = estimateYaml(moe("1f1b")), onePv = estimateYaml(with("1f1b"));
        QCOMPARE(onePv.stepSeconds, one.stepSeconds);
        QVERIFY(says(onePv, "optimizer_post_validation changes nothing here") && !says(one, "post-validation"));
    }

    // The view's simulation is the one the estimate priced: for dualpipe the same
    // makespan to the nanosecond; zb-h1's closed form is exact for equal stages and
    // otherwise an upper bound (tst_schedules).
    void evaluationSimulatesWhatWasPriced_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("dualpipe") << "dualpipe";
        QTest::newRow("zbv") << "zbv";
        QTest::newRow("dualpipev") << "dualpipev";
        QTest::newRow("v-half") << "v-half";
        QTest::newRow("v-min") << "v-min";
        QTest::newRow("zb-h1") << "zb-h1";
        QTest::newRow("zb-h2") << "zb-h2";
        QTest::newRow("1f1b") << "1f1b";
    }
    void evaluationSimulatesWhatWasPriced() {
        QFETCH(QString, schedule);
        const Evaluation ev = evaluateScenario(parseScenario(moe(schedule.toStdString()), "t.yaml", Format::Yaml, ""));
        QVERIFY2(ev.notSimulated.empty(), ev.notSimulated.c_str());
        double tail = 0;
        for (const StageEstimate& s : ev.estimate.stages) {
            const double dp = s.time.dpExposed + (s.hasMirror ? s.mirror.dpExposed : 0);
            const double opt = s.time.optimizer + (s.hasMirror ? s.mirror.optimizer : 0);
            tail = std::max(tail, dp + opt);
        }
        const double priced = ev.estimate.stepSeconds - tail;
        if (pricedBySimulation(scheduleNamed(schedule.toStdString()))) {  // priced by this simulation
            QVERIFY(std::abs(ev.pipeline.makespan - priced) <= 1e-9 * priced);
            int pairs = 0;
            for (const PipelineEvent& e : ev.pipeline.events) pairs += e.paired;
            QCOMPARE(pairs > 0, schedule.startsWith("dualpipe"));
        } else {
            QVERIFY2(ev.pipeline.makespan <= priced * (1 + 1e-9),
                     qPrintable(QString("simulated %1, priced %2").arg(ev.pipeline.makespan).arg(priced)));
            QVERIFY(ev.pipeline.makespan >= priced * 0.9);
        }
        if (schedule == "zb-h1") {
            bool split = false;
            for (const PipelineEvent& e : ev.pipeline.events) split |= e.phase == Phase::WeightGrad;
            QVERIFY(split);
        }
    }

    // Exposed communication by dimension adds up to the stage's exposed total, and no
    // dimension shows more exposed than it moves before overlap.
    void exposedByDimensionSums_data() {
        QTest::addColumn<QString>("yaml");
        QTest::newRow("moe ep, dualpipe") << QString::fromStdString(moe("dualpipe"));
        QTest::newRow("moe ep, zb-h1") << QString::fromStdString(moe("zb-h1"));
        QTest::newRow("moe ep, zb-h2") << QString::fromStdString(moe("zb-h2"));
        QTest::newRow("tp 8 sp, cp 2 ring, pp 4") << "model: llama3-70b\ncluster: {device: h100-sxm, devices: 64}\n"
                                                  "exec: {tp: 8, pp: 4, cp: 2, sequence_parallel: true, seq_length: 16384, "
                                                  "micro_batch_size: 1, micro_batch_num: 16}\n";
        QTest::newRow("fsdp over 8") << "model: llama3-8b\ncluster: {device: a100-80gb, devices: 8}\n"
                                     "exec: {seq_length: 4096, micro_batch_size: 1, micro_batch_num: 4, optimizer_parallel: true, "
                                     "grad_shard_as_params: true}\n";
        QTest::newRow("offload") << "model: llama3-8b\ncluster: {device: h100-sxm, devices: 8}\n"
                                 "exec: {tp: 2, pp: 4, seq_length: 8192, micro_batch_size: 1, micro_batch_num: 8, activation_offload: 2}\n";
    }
    void exposedByDimensionSums() {
        QFETCH(QString, yaml);
        const Estimate e = estimateYaml(yaml.toStdString());
        double moved = 0;
        for (const StageEstimate& s : e.stages)
            for (const StageTime* t : {&s.time, s.hasMirror ? &s.mirror : nullptr}) {
                if (!t) continue;
                QVERIFY2(std::abs(t->exposed.sum() - t->communication) <= 1e-12 + 1e-9 * t->communication,
                         qPrintable(QString("stage %1: %2 by dimension, %3 in all").arg(s.stage).arg(t->exposed.sum()).arg(t->communication)));
                const double slack = 1e-12;
                QVERIFY(t->exposed.tp <= t->tp + slack && t->exposed.cp <= t->cp + slack && t->exposed.ep <= t->ep + slack);
                QVERIFY(t->exposed.pp <= t->pp + slack && t->exposed.host <= t->host + slack);
                moved += t->exposed.sum();
            }
        QVERIFY(moved > 0);
    }

    // The planner models one stage per device under the 1F1B family (zb-h1 with its
    // held-back weight gradients): it says so rather than balance a zb-h2 or dualpipe
    // strategy as if it were 1f1b.
    void plannerRefusesWhatItDoesNotModel_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("zb-h2") << "zb-h2";
        QTest::newRow("dualpipe") << "dualpipe";
        QTest::newRow("zbv") << "zbv";
        QTest::newRow("dualpipev") << "dualpipev";
        QTest::newRow("v-half") << "v-half";
        QTest::newRow("v-min") << "v-min";
    }
    void plannerRefusesWhatItDoesNotModel() {
        QFETCH(QString, schedule);
        const Plan plan = planStrategy(inputYaml(moe(schedule.toStdString())), PlanRequest{});
        QVERIFY(!plan.planned);
        QVERIFY2(QString::fromStdString(plan.why).contains("not " + schedule + " (estimate prices it as stated)"), plan.why.c_str());
        QVERIFY(planStrategy(inputYaml(moe("1f1b")), PlanRequest{}).planned);
    }
    // Nor the combined-1F1B pairs of overlap_moe_expert_parallel_comm (it balances stages
    // that run one op at a time), and seqpipe's parts: it says so rather than plan 1F1B.
    void plannerRefusesPairsAndParts() {
        std::string paired = moe("interleaved");
        paired.replace(paired.find("pp: 8"), 5, "pp: 8, vpp: 2, overlap_moe_expert_parallel_comm: true");
        const Plan pairs = planStrategy(inputYaml(paired), PlanRequest{});
        QVERIFY(!pairs.planned);
        QVERIFY2(QString::fromStdString(pairs.why).contains("not the F&B pairs of overlap_moe_expert_parallel_comm"), pairs.why.c_str());
        std::string parts = moe("seqpipe");
        parts.replace(parts.find("pp: 8"), 5, "pp: 8, seq_split: 2");
        const Plan seq = planStrategy(inputYaml(parts), PlanRequest{});
        QVERIFY(!seq.planned);
        QVERIFY2(QString::fromStdString(seq.why).contains("not seqpipe"), seq.why.c_str());
    }

    // Refusals the resolver owns: DualPipe's shape, stated by name.
    void dualPipeShapeRefused_data() {
        QTest::addColumn<QString>("exec");
        QTest::addColumn<QString>("message");
        QTest::newRow("odd pp") << "dp: 8, tp: 1, pp: 1, ep: 8, micro_batch_num: 4"
                                << "needs an even pp, got 1";
        QTest::newRow("too few micro-batches") << "dp: 8, tp: 1, pp: 8, ep: 8, micro_batch_num: 12"
                                               << "at least 2 x pp (16, DualPipe.step's num_chunks >= 2 * num_ranks), got 12";
        QTest::newRow("zbv, one chunk") << "dp: 8, tp: 1, pp: 8, ep: 8, micro_batch_num: 32, pp_schedule: zbv"
                                        << "exec.vpp: zbv runs two chunks per stage in a V (chunk 1 back up the stages): state vpp: 2, got 1";
        QTest::newRow("zbv, too few micro-batches") << "dp: 8, tp: 1, pp: 8, ep: 8, vpp: 2, micro_batch_num: 14, pp_schedule: zbv"
                                                    << "zbv's steady state needs at least 2 x pp - 1 (15)";
        QTest::newRow("dualpipev, too few micro-batches") << "dp: 8, tp: 1, pp: 8, ep: 8, vpp: 2, micro_batch_num: 15, pp_schedule: dualpipev"
                                                          << "dualpipev needs at least 2 x pp (16";
    }
    void dualPipeShapeRefused() {
        QFETCH(QString, exec);
        QFETCH(QString, message);
        const std::string schedule = exec.contains("pp_schedule") ? "" : ", pp_schedule: dualpipe";
        const std::string yaml = "model: mixtral-8x7b\ncluster: {device: h100-sxm, devices: " +
                                 std::string(exec.contains("pp: 1,") ? "8" : "64") + "}\nexec: {" + exec.toStdString() +
                                 ", seq_length: 4096, micro_batch_size: 1" + schedule + "}\n";
        try {
            resolveYaml(yaml);
            QFAIL("accepted");
        } catch (const SpecError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // seqpipe in the cost model: each stage holds p - s + n - 1 parts of 1/n of a
    // micro-batch's activations instead of 1F1B's p - s micro-batches, and the bubble
    // is 1F1B's over n. Llama-3 8B on 4 stages, 16 H100, 32 micro-batches.
    void seqPipeAgainst1F1B() {
        const std::string base = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                                 "exec: {tp: 2, pp: 4, seq_length: 8192, micro_batch_size: 1, global_batch_size: 64";
        const int p = 4, n = 4;
        const Estimate one = estimateYaml(base + "}\n");
        const Estimate seq = estimateYaml(base + ", pp_schedule: seqpipe, seq_split: 4}\n");
        QCOMPARE(seq.seqSplit, n);
        for (int s = 0; s < p; ++s) {
            const double ratio = double(seq.stages[s].memory.activations) / double(one.stages[s].memory.activations);
            const double expected = double(p - s + n - 1) / n / double(p - s);
            QVERIFY2(std::abs(ratio - expected) < 1e-6, qPrintable(QString("stage %1: %2 against %3").arg(s).arg(ratio).arg(expected)));
            QCOMPARE(seq.stages[s].inFlightPerChunk, (std::vector<std::int64_t>{p - s + n - 1}));
            // Priced per micro-batch, run in parts: each GEMM and collective n times at 1/n of
            // the size, a little slower (the curve's knee, the links' latency per part).
            QVERIFY(seq.stages[s].time.forward > one.stages[s].time.forward);
            QVERIFY(seq.stages[s].time.forward < 1.05 * one.stages[s].time.forward);
        }
        QVERIFY(seq.breakdown.bubble > one.breakdown.bubble / n && seq.breakdown.bubble < 1.05 * one.breakdown.bubble / n);
        QVERIFY(seq.stepSeconds < one.stepSeconds);
        // The view simulates the parts the estimate priced: the closed form bounds the
        // simulated pipeline from above (as 1F1B's does when stages differ), and the
        // boxes are sequence parts, n per micro-batch and stage.
        const Evaluation ev = evaluateScenario(parseScenario(base + ", pp_schedule: seqpipe, seq_split: 4}\n", "t.yaml", Format::Yaml, ""));
        QVERIFY(simulationWithinPrice(ev));
        const auto forwards = std::count_if(ev.pipeline.events.begin(), ev.pipeline.events.end(),
                                            [](const PipelineEvent& e) { return e.phase == Phase::Forward && e.stage == 0; });
        QCOMPARE(int(forwards), 32 * n);
    }

    // seqsmartvpp (Seq1F1B-I) in the cost model: the interleaved table over sequence
    // parts, so stage s holds 2(p-s-1) + (v-1)p + n chunk-parts of 1/n of a micro-batch
    // each (interleaved's + 1 shifted by n - 1, the seed's rule, reference §4.8) and the
    // bubble is interleaved's over n. Same run, vpp 2.
    void seqSmartVppAgainstInterleaved() {
        const std::string base = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 16}\n"
                                 "exec: {tp: 2, pp: 4, vpp: 2, seq_length: 8192, micro_batch_size: 1, global_batch_size: 64";
        const int p = 4, v = 2, n = 4;
        const Estimate chunks = estimateYaml(base + ", pp_schedule: interleaved}\n");
        const std::string seqYaml = base + ", pp_schedule: seqsmartvpp, seq_split: 4}\n";
        const Estimate seq = estimateYaml(seqYaml);
        QCOMPARE(seq.seqSplit, n);
        // The table's first `held` forwards, per chunk: blocks of p (Megatron-LM get_model_chunk_id).
        auto perChunk = [&](std::int64_t held) {
            std::vector<std::int64_t> out;
            for (int c = 0; c < v; ++c) out.push_back(held / (p * v) * p + std::clamp<std::int64_t>(held % (p * v) - c * p, 0, p));
            return out;
        };
        for (int s = 0; s < p; ++s) {
            const int heldParts = 2 * (p - s - 1) + (v - 1) * p + n, heldWhole = 2 * (p - s - 1) + (v - 1) * p + 1;
            QCOMPARE(seq.stages[s].inFlightPerChunk, perChunk(heldParts));
            QCOMPARE(chunks.stages[s].inFlightPerChunk, perChunk(heldWhole));
            QVERIFY(seq.stages[s].time.forward > chunks.stages[s].time.forward);
            QVERIFY(seq.stages[s].time.forward < 1.05 * chunks.stages[s].time.forward);
            if (s == 0 || s == p - 1) continue;  // their chunks differ (embedding, logits): the counts above say it
            const double ratio = double(seq.stages[s].memory.activations) / double(chunks.stages[s].memory.activations);
            const double expected = double(heldParts) / n / heldWhole;
            QVERIFY2(std::abs(ratio - expected) < 1e-3 * expected,
                     qPrintable(QString("stage %1: %2 against %3").arg(s).arg(ratio).arg(expected)));
        }
        QVERIFY(seq.breakdown.bubble > chunks.breakdown.bubble / n && seq.breakdown.bubble < 1.05 * chunks.breakdown.bubble / n);
        QVERIFY(seq.stepSeconds < chunks.stepSeconds);
        // The view's simulation of the same parts agrees with the closed form the estimate priced.
        const Evaluation ev = evaluateScenario(parseScenario(seqYaml, "t.yaml", Format::Yaml, ""));
        QVERIFY(simulationWithinPrice(ev));
        for (int s = 0; s < p; ++s)
            QCOMPARE(std::int64_t(ev.pipeline.peakInFlight[std::size_t(s)]), std::int64_t(2 * (p - s - 1) + (v - 1) * p + n));
    }

    // Why parts cost more than their share: a part's GEMMs are 1/n of the micro-batch's,
    // lower on the matmul curve (efficiency.h), and each part pays the links' latency.
    // The forward grows with n, and past the curve's knee it grows fast: Llama-3 8B at
    // seq 4096, 2 ... 64 parts (64 to 2,048 tokens a part).
    void sequencePartsPayTheirSize() {
        const std::string base = "model: llama3-8b\ncluster: {device: h100-sxm, devices: 4}\n"
                                 "exec: {tp: 2, pp: 2, seq_length: 4096, micro_batch_size: 1, global_batch_size: 64, pp_schedule: seqpipe";
        double before = estimateYaml(base + "}\n").stages[1].time.forward;  // seq_split unstated: 1
        const double whole = before;
        for (int n : {2, 4, 8, 16, 32, 64}) {
            const double forward = estimateYaml(base + ", seq_split: " + std::to_string(n) + "}\n").stages[1].time.forward;
            QVERIFY2(forward > before, qPrintable(QString("n=%1: %2 after %3").arg(n).arg(forward).arg(before)));
            before = forward;
        }
        QVERIFY2(before > 1.2 * whole, qPrintable(QString("64 parts of 64 tokens: %1 against %2 whole").arg(before).arg(whole)));
    }

private:
    static double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }
    // The view's simulation of what the estimate priced: no longer than the closed form's
    // pipeline (the step less the slowest stage's tail), and no more than 5 % shorter.
    static bool simulationWithinPrice(const Evaluation& ev) {
        if (!ev.notSimulated.empty()) return qWarning("%s", ev.notSimulated.c_str()), false;
        double tail = 0;
        for (const StageEstimate& st : ev.estimate.stages) tail = std::max(tail, st.time.dpExposed + st.time.optimizer);
        const double priced = ev.estimate.stepSeconds - tail;
        if (ev.pipeline.makespan <= priced * (1 + 1e-9) && ev.pipeline.makespan >= priced * 0.95) return true;
        qWarning("simulated %g, priced %g", ev.pipeline.makespan, priced);
        return false;
    }

};

QTEST_APPLESS_MAIN(TestScheduleCost)
#include "tst_schedulecost.moc"

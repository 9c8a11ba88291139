// Exec resolution: run defaults, the derived degrees and batch sizes, and the
// rules that tie the run to the model and the cluster (seed ExecSpec.validate,
// reference/hyperparallel.md §6.4, and the layouts Megatron-LM accepts).
#include <limits>

#include "io/presets.h"
#include "pipeline/closedform.h"
#include "resolve/resolver.h"

namespace tessera::core::detail {

namespace {
std::string num(std::int64_t n) { return std::to_string(n); }

// Degrees and batch sizes come from files as any whole number up to 2^63-1, so
// their products overflow int64 (tp 2^62 · pp 4 · cp 4 wrapped to 0 and the devices
// were divided by it: tests/data/fuzz/guardrails/degrees-product-overflow.yaml).
// The rules below multiply through these two.
std::optional<std::int64_t> product(std::initializer_list<std::int64_t> factors) {
    std::int64_t p = 1;
    for (std::int64_t f : factors)
        if (__builtin_mul_overflow(p, f, &p)) return std::nullopt;
    return p;
}
// "2·3·1 = 6", or "2·3·1, beyond 2^63-1" when the product overflows.
std::string productText(std::initializer_list<std::int64_t> factors) {
    std::string text;
    for (std::int64_t f : factors) text += (text.empty() ? "" : "·") + num(f);
    const std::optional<std::int64_t> p = product(factors);
    return p ? text + " = " + num(*p) : text + ", beyond 2^63-1";
}
}  // namespace

void Resolver::resolveExecRun() {
    ExecSpec& e = exec();
    const ModelSpec& m = model();
    fillFrom(e, execDefaults(), "exec", Origin::Default, "");

    if (!e.seq_length) refuse("exec.seq_length", "required: the training sequence length");
    // The vision tower's tokens are the data's, like seq_length: never guessed.
    if (m.vision_hidden_size && !e.visual_seq_len)
        refuse("exec.visual_seq_len", "required: the model has a vision tower; state the image tokens per sample it hands "
                                      "the language model");
    if (!m.vision_hidden_size && e.visual_seq_len) refuse("exec.visual_seq_len", "is stated, but the model has no vision tower");
    if (!m.vision_hidden_size && e.freeze_vision_tower && *e.freeze_vision_tower)
        refuse("exec.freeze_vision_tower", "is true, but the model has no vision tower");
    if (e.visual_seq_len && e.seq_length && *e.visual_seq_len > *e.seq_length)
        refuse("exec.visual_seq_len", "the image tokens sit in the sequence: at most seq_length (" + num(*e.seq_length) +
                                          "), got " + num(*e.visual_seq_len));
    // Optimizer states follow the optimizer (AdamW's two moments, Muon's one momentum).
    const std::int64_t states = *e.optimizer == "muon" ? 1 : 2;
    if (e.optimizer_states && *e.optimizer_states != states)
        refuse("exec.optimizer_states", *e.optimizer + " keeps " + num(states) + (states == 1 ? " state" : " states") +
                                            " per parameter, got " + num(*e.optimizer_states));
    fill("exec.optimizer_states", e.optimizer_states, states, Origin::Derived, "optimizer " + *e.optimizer);
    if (e.tie_embeddings && *e.tie_embeddings && !*m.tie_word_embeddings)
        refuse("exec.tie_embeddings", "the run cannot tie tables the model (tie_word_embeddings: false) keeps apart");
    fill("exec.tie_embeddings", e.tie_embeddings, *m.tie_word_embeddings, Origin::Derived, "model.tie_word_embeddings");
    for (auto [key, field] : {std::pair{"param_bytes", &e.param_bytes}, {"compute_bytes", &e.compute_bytes},
                              {"softmax_bytes", &e.softmax_bytes}, {"norm_bytes", &e.norm_bytes}})
        if (*field == 0) refuse(std::string("exec.") + key, "a tensor cannot take 0 bytes per element");
    // Rules no strategy changes, checked here so a search refuses them before it starts.
    if (e.seq_length) {
        const std::int64_t s = *e.seq_length;
        if (e.seq_split && s % *e.seq_split != 0)
            refuse("exec.seq_split", "must divide seq_length (" + num(s) + "), got " + num(*e.seq_split));
        if (m.position_embedding == "learned" && m.max_position_embeddings && s > *m.max_position_embeddings)
            refuse("exec.seq_length", "learned positions cover " + num(*m.max_position_embeddings) + " tokens, got " + num(s));
    }
    // Beside grouped_gemm: true a capacity factor changes nothing, and is marked not
    // priced (model/priced.h), as the seed's own DeepSeek search file states one.
    if (!isMoe(m) && e.capacity_factor) refuse("exec.capacity_factor", "applies to mixture-of-experts models only");
    if (!isMoe(m) && *e.overlap_moe_expert_parallel_comm)
        refuse("exec.overlap_moe_expert_parallel_comm", "applies to mixture-of-experts models only");
    if (!isMoe(m) && *e.moe_enable_deepep) refuse("exec.moe_enable_deepep", "applies to mixture-of-experts models only");
    if (!isMoe(m) && e.expert_tp) refuse("exec.expert_tp", "applies to mixture-of-experts models only");
    // DeepEP's kernels occupy SMs while they run beside compute: how many, of how many.
    if (*e.moe_enable_deepep) {
        fill("exec.moe_deepep_sms", e.moe_deepep_sms, std::int64_t{20}, Origin::Default,
             "DeepEP's Buffer.num_sms (deep_ep/buffer.py), the DeepSeek-V3 report's 20 SMs");
        const DeviceSpec& dev = *cluster().device;
        if (!dev.sms)
            refuse("exec.moe_enable_deepep", "DeepEP's kernels run on some of the device's SMs, and the device (" +
                                                 dev.name.value_or("?") + ") states no sms; state cluster.device.sms");
        else if (*e.moe_deepep_sms >= *dev.sms)
            refuse("exec.moe_deepep_sms", "leaves no SM for compute: the device (" + dev.name.value_or("?") + ") has " +
                                              std::to_string(*dev.sms) + ", got " + std::to_string(*e.moe_deepep_sms));
    } else if (e.moe_deepep_sms) {
        refuse("exec.moe_deepep_sms", "applies with moe_enable_deepep: true only");
    }
    // The device must have a peak for the compute dtype.
    const DeviceSpec& d = *cluster().device;
    if (d.peak_tflops && !d.peak_tflops->contains(*e.compute_dtype))
        refuse("exec.compute_dtype", "the device (" + d.name.value_or("?") + ") has no " + *e.compute_dtype +
                                         " peak; choose a dtype it lists under peak_tflops");
    // FP8: the recipe (Megatron-LM's default when unstated) and what stays in BF16.
    const bool fp8 = *e.compute_dtype == "fp8";
    if (!fp8 && e.fp8_recipe)
        refuse("exec.fp8_recipe", "applies to compute_dtype: fp8 only, got compute_dtype " + *e.compute_dtype);
    if (!fp8 && *e.fp8_attention)
        refuse("exec.fp8_attention", "applies to compute_dtype: fp8 only, got compute_dtype " + *e.compute_dtype);
    if (!fp8 && *e.attention_output_e5m6)
        refuse("exec.attention_output_e5m6", "is DeepSeek-V3's storage beside its FP8 projection: compute_dtype: fp8 only, "
                                             "got compute_dtype " + *e.compute_dtype);
    if (!fp8 && *e.fp8_params)
        refuse("exec.fp8_params", "stores the FP8 linear layers' weights in FP8: compute_dtype: fp8 only, got compute_dtype " +
                                      *e.compute_dtype);
    if (*e.fp8_reduce_scatter && (!fp8 || !*e.tp_comm_overlap))
        refuse("exec.fp8_reduce_scatter", "is a userbuffers buffer of Transformer Engine's FP8 overlap: needs compute_dtype: "
                                          "fp8 and tp_comm_overlap: true, got compute_dtype " + *e.compute_dtype +
                                          (*e.tp_comm_overlap ? "" : " without tp_comm_overlap"));
    if (fp8 && *e.fp8_params && (!*e.optimizer_parallel || *e.grad_shard_as_params))
        refuse("exec.fp8_params", "is priced under the distributed optimizer, which keeps the FP32 master weights and "
                                  "gathers the FP8 ones (Megatron-LM --fp8-param-gather with --use-distributed-optimizer): "
                                  "needs optimizer_parallel: true without grad_shard_as_params");
    if (fp8) {
        fill("exec.fp8_recipe", e.fp8_recipe, std::string("delayed"), Origin::Default,
             "Megatron-LM's --fp8-recipe default");
        if (d.peak_tflops && !d.peak_tflops->contains("bf16"))
            refuse("exec.compute_dtype", "an FP8 run keeps attention, norms, router, embedding and output layer in "
                                         "BF16, and the device (" + d.name.value_or("?") + ") lists no bf16 peak");
        if (*e.fp8_recipe == "mxfp8" && d.peak_tflops && !d.peak_tflops->contains("mxfp8"))
            refuse("exec.fp8_recipe", "mxfp8 needs tensor cores that scale 1x32 blocks (Blackwell), and the device (" +
                                          d.name.value_or("?") + ") lists no mxfp8 peak");
    }

}

// expert_tp and etp, Megatron-LM's spelling and the seed's (resolve/expertgrid.h): one
// stated fills the other where the other can say it; both stated must say the same.
std::int64_t Resolver::visionStages(const ExecSpec& e, const ModelSpec& m, std::int64_t pp, std::int64_t vpp) {
    if (!e.vision_partition) return 1;
    const char* key = "exec.vision_partition";
    if (!m.vision_depth) {
        refuse(key, "is stated, but the model has no vision tower");
        return 1;
    }
    const auto* blocks = std::get_if<StageCounts::Flat>(&e.vision_partition->value);
    if (!blocks) return 1;  // the reader takes a list only
    if (std::int64_t(blocks->size()) != pp) {
        refuse(key, "one count per stage: pp = " + num(pp) + " stages, got " + num(std::int64_t(blocks->size())));
        return 1;
    }
    std::int64_t sum = 0, spans = 0;
    for (std::size_t s = 0; s < blocks->size(); ++s) {
        const std::int64_t n = (*blocks)[s];
        if (n > 0 && spans != std::int64_t(s)) {
            refuse(key, "the tower runs from stage 0 on consecutive stages, its blocks in order: stage " + num(std::int64_t(s)) +
                            " holds " + num(n) + " blocks after a stage with none");
            return 1;
        }
        if (n > 0) ++spans;
        sum += n;
    }
    if (sum != *m.vision_depth) {
        refuse(key, "the stages hold " + num(sum) + " vision blocks, but the tower has " + num(*m.vision_depth) +
                        " (model.vision_depth)");
        return 1;
    }
    if (spans <= 1) return 1;  // the whole tower on stage 0: as unstated
    // The text layers follow the tower's last stage; a second chunk or a V would run
    // blocks after text layers of the same micro-batch.
    if (vpp > 1) refuse(key, "splits the tower over stages with one chunk per stage, got vpp " + num(vpp));
    const std::string& schedule = *e.pp_schedule;
    if (schedule != "1f1b" && schedule != "gpipe" && schedule != "zb-h1")
        refuse(key, "splits the tower over stages under gpipe, 1f1b or zb-h1, whose stages run in order once a "
                    "micro-batch; got pp_schedule " + schedule);
    m_out.visionBlocks = *blocks;
    return spans;
}

void Resolver::resolveExpertTp() {
    ExecSpec& e = exec();
    const std::int64_t tp = *e.tp;
    if (e.expert_tp && e.etp) {
        if (const std::int64_t seed = seedExpertTp(*e.etp, tp); seed != *e.expert_tp)
            refuse("exec.expert_tp", "states " + num(*e.expert_tp) + " expert tensor-parallel ranks, but etp: " + num(*e.etp) +
                                         (*e.etp > 1 ? std::string() : " (at most 1: the dense tp, the seed's rule)") +
                                         " states " + num(seed) + "; state one of expert_tp and etp");
        return;
    }
    if (e.etp) {
        fill("exec.expert_tp", e.expert_tp, seedExpertTp(*e.etp, tp), Origin::Derived,
             *e.etp > 1 ? "etp" : "etp " + num(*e.etp) + ": at most 1 runs the experts at tp (the seed's rule)");
        return;
    }
    if (e.expert_tp) {
        // etp says a degree above 1, or tp; 1 beside tp > 1 it cannot say, and stays unstated.
        if (*e.expert_tp > 1 || tp == 1)
            fill("exec.etp", e.etp, *e.expert_tp, Origin::Derived, "expert_tp, in the seed's spelling");
        return;
    }
    fill("exec.expert_tp", e.expert_tp, tp, Origin::Default,
         "tp: Megatron-LM runs the experts at --tensor-model-parallel-size unless --expert-tensor-parallel-size says "
         "otherwise (the seed's etp rule too)");
}

void Resolver::resolveExecStrategy() {
    ExecSpec& e = exec();
    const ModelSpec& m = model();
    // Degrees and the devices.
    const std::int64_t devices = *cluster().devices;
    const std::int64_t tp = *e.tp, pp = *e.pp, cp = *e.cp, vpp = *e.vpp, ep = *e.ep;
    if (!e.dp) {
        const std::optional<std::int64_t> tpppcp = product({tp, pp, cp});
        if (!tpppcp || devices % *tpppcp != 0) {
            refuse("exec.dp", "cannot be derived: tp·pp·cp = " + productText({tp, pp, cp}) + " does not divide the " +
                                  num(devices) + " devices");
            return;
        }
        fill("exec.dp", e.dp, devices / *tpppcp, Origin::Derived, "devices / (tp·pp·cp)");
    } else if (const std::optional<std::int64_t> all = product({*e.dp, tp, pp, cp}); all != devices) {
        refuse("exec.dp", "dp·tp·pp·cp = " + productText({*e.dp, tp, pp, cp}) + " must equal the devices (" + num(devices) + ")");
        if (!all) return;  // the rules below multiply the degrees again
    }
    const std::int64_t dp = *e.dp;

    // Tensor parallelism splits heads.
    const std::int64_t a = *m.num_attention_heads, g = *m.num_key_value_heads;
    if (a % tp != 0) refuse("exec.tp", "must divide num_attention_heads (" + num(a) + "), got " + num(tp));
    else if (!isMla(m) && g % tp != 0)
        refuse("exec.tp", "must divide num_key_value_heads (" + num(g) + "), got " + num(tp) +
                              " (replicating key/value heads is not modelled)");
    if (m.linear_num_value_heads && m.linear_num_key_heads &&
        (*m.linear_num_key_heads % tp != 0 || *m.linear_num_value_heads % tp != 0))
        refuse("exec.tp", "must divide the linear-attention heads (" + num(*m.linear_num_key_heads) + " key, " +
                              num(*m.linear_num_value_heads) + " value), got " + num(tp));
    if (*e.sequence_parallel && tp == 1) refuse("exec.sequence_parallel", "needs tp > 1: it splits activations over the tensor-parallel group");
    if (*e.tp_comm_overlap && tp > 1 && !*e.sequence_parallel)
        refuse("exec.tp_comm_overlap", "needs sequence_parallel: it pipelines the sequence-parallel all-gathers and "
                                       "reduce-scatters with their GEMMs (Megatron-LM refuses it without)");

    // Context parallelism splits the sequence.
    if (e.seq_length) {
        const std::int64_t s = *e.seq_length;
        if (cp > 1 && *e.cp_algo == "colossalai_cp" && s % (2 * cp) != 0)
            refuse("exec.cp", "the ring splits the sequence into 2·cp load-balanced chunks: seq_length (" + num(s) +
                                  ") must be a multiple of " + num(2 * cp));
        if (cp > 1 && *e.cp_algo != "colossalai_cp" && ((a / tp) % cp != 0 || s % cp != 0))
            refuse("exec.cp", "all-to-all context parallelism splits heads: num_attention_heads / tp (" + num(a / tp) +
                                  ") and seq_length (" + num(s) + ") must be multiples of cp (" + num(cp) + ")");
        if (*e.sequence_parallel && s % (tp * cp) != 0)
            refuse("exec.sequence_parallel", "seq_length (" + num(s) + ") must be a multiple of tp·cp (" + num(tp * cp) + ")");
    }

    // Experts: their own grid over the stage's ranks (resolve/expertgrid.h).
    if (!isMoe(m)) {
        if (ep > 1) refuse("exec.ep", "needs a mixture-of-experts model, and this one has no routed experts");
    } else {
        const bool megatron = e.expert_tp.has_value();  // stated in Megatron's spelling
        resolveExpertTp();
        const std::int64_t experts = *m.num_experts, etp = expertTp(e);
        const std::optional<ExpertGrid> grid = expertGrid(tp, cp, dp, ep, etp);
        if (experts % ep != 0) refuse("exec.ep", "must divide num_experts (" + num(experts) + "), got " + num(ep));
        else if (!grid)
            refuse(megatron ? "exec.expert_tp" : "exec.ep",
                   "ep · expert tensor parallelism = " + productText({ep, etp}) +
                       " ranks must divide dp·tp·cp = " + num(dp * tp * cp) + ", the ranks the expert grid folds over" +
                       (megatron || e.etp.value_or(0) > 1 ? std::string()
                        : e.etp ? " (experts run at tp, since etp is at most 1; expert_tp: 1 keeps them whole)"
                                : " (experts run at tp; expert_tp: 1, Megatron-LM's --expert-tensor-parallel-size 1, "
                                  "keeps them whole)"));
        if (m.moe_intermediate_size && *m.moe_intermediate_size % etp != 0)
            refuse(megatron ? "exec.expert_tp" : "exec.etp", "expert tensor parallelism (" + num(etp) +
                                                                 ") must divide moe_intermediate_size (" +
                                                                 num(*m.moe_intermediate_size) + ")");
        if (e.expert_shard && grid && grid->dp % *e.expert_shard != 0)
            refuse("exec.expert_shard", "must divide the expert data-parallel group dp·tp·cp/(ep·expert_tp) (" + num(grid->dp) +
                                            "), got " + num(*e.expert_shard));
    }

    // Sharding (ZeRO stages build on each other).
    const std::int64_t shardDomain = dp * (*e.shard_spans_cp ? cp : 1);
    if (*e.deferred_grad_accumulation && !*e.grad_shard_as_params)
        refuse("exec.deferred_grad_accumulation", "holds FSDP's reduce-scattered gradients: it needs grad_shard_as_params: true");
    if (!*e.optimizer_parallel) {
        if (e.optimizer_shard) refuse("exec.optimizer_shard", "needs optimizer_parallel: true");
        if (*e.grad_shard) refuse("exec.grad_shard", "sharded gradients (ZeRO-2) need sharded optimizer states: optimizer_parallel: true");
        if (*e.grad_shard_as_params) refuse("exec.grad_shard_as_params", "FSDP sharding needs optimizer_parallel: true");
    } else {
        fill("exec.optimizer_shard", e.optimizer_shard, shardDomain, Origin::Derived,
             *e.shard_spans_cp ? "dp · cp (the whole sharding domain)" : "dp (the whole data-parallel group)");
        if (shardDomain % *e.optimizer_shard != 0)
            refuse("exec.optimizer_shard", "must divide " + std::string(*e.shard_spans_cp ? "dp·cp (" : "dp (") + num(shardDomain) +
                                               "), got " + num(*e.optimizer_shard));
    }

    // The batch: global = micro-batch size · micro-batches · dp.
    auto& mbs = e.micro_batch_size;
    auto& mbn = e.micro_batch_num;
    auto& gbs = e.global_batch_size;
    // A product past 2^63-1 is past any global batch, so it cannot divide or equal one.
    const auto divides = [](std::optional<std::int64_t> d, std::int64_t n) { return d && n % *d == 0; };
    if (gbs && mbs && !mbn) {
        if (!divides(product({*mbs, dp}), *gbs))
            refuse("exec.global_batch_size", "must be a multiple of micro_batch_size · dp (" + num(*mbs) + "·" + num(dp) + "), got " + num(*gbs));
        else fill("exec.micro_batch_num", mbn, *gbs / (*mbs * dp), Origin::Derived, "global_batch_size / (micro_batch_size · dp)");
    } else if (gbs && mbn && !mbs) {
        if (!divides(product({*mbn, dp}), *gbs))
            refuse("exec.global_batch_size", "must be a multiple of micro_batch_num · dp (" + num(*mbn) + "·" + num(dp) + "), got " + num(*gbs));
        else fill("exec.micro_batch_size", mbs, *gbs / (*mbn * dp), Origin::Derived, "global_batch_size / (micro_batch_num · dp)");
    } else if (mbs && mbn && !gbs) {
        if (const std::optional<std::int64_t> all = product({*mbs, *mbn, dp}))
            fill("exec.global_batch_size", gbs, *all, Origin::Derived, "micro_batch_size · micro_batch_num · dp");
        else refuse("exec.global_batch_size", "micro_batch_size · micro_batch_num · dp = " + productText({*mbs, *mbn, dp}) +
                                                  " cannot be a global batch size");
    } else if (gbs && !mbs && !mbn) {
        fill("exec.micro_batch_size", mbs, std::int64_t{1}, Origin::Default, "one sequence per micro-batch");
        if (*gbs % dp != 0) refuse("exec.global_batch_size", "must be a multiple of dp (" + num(dp) + "), got " + num(*gbs));
        else fill("exec.micro_batch_num", mbn, *gbs / dp, Origin::Derived, "global_batch_size / (micro_batch_size · dp)");
    } else if (!gbs) {
        refuse("exec.global_batch_size", "required: state global_batch_size, or micro_batch_size and micro_batch_num");
    }
    if (gbs && mbs && mbn && product({*mbs, *mbn, dp}) != *gbs)
        refuse("exec.global_batch_size", "must equal micro_batch_size · micro_batch_num · dp = " + productText({*mbs, *mbn, dp}) +
                                             ", got " + num(*gbs));
    // The pipeline's closed forms take the micro-batches as an int (pipeline/closedform.h).
    if (mbn && *mbn > std::numeric_limits<int>::max())
        refuse("exec.micro_batch_num", "at most " + num(std::numeric_limits<int>::max()) +
                                           " micro-batches per step are modelled, got " + num(*mbn));
    if (mbn && *mbn < pp)
        refuse("exec.micro_batch_num", "a pipeline of " + num(pp) + " stages needs at least " + num(pp) +
                                           " micro-batches to fill, got " + num(*mbn));
    if (mbn) {
        if (*mbn > 1 && e.grad_accumulation == false)
            refuse("exec.grad_accumulation", "is false, but " + num(*mbn) + " micro-batches" +
                                                 (pp == 1 ? " without pipelining" : "") + " accumulate gradients");
        if (*mbn > 1)
            fill("exec.grad_accumulation", e.grad_accumulation, true, Origin::Derived, "gradients accumulate over micro-batches");
        else  // false frees each gradient as it is reduced: the seed's rule, stated, not assumed
            fill("exec.grad_accumulation", e.grad_accumulation, true, Origin::Default,
                 "gradients held until the optimizer step (Megatron-LM's main_grad buffer)");
    }

    // Pipeline: schedule, chunks and the layers they hold.
    if (vpp > 1 && pp == 1) refuse("exec.vpp", "virtual pipeline chunks need pp > 1");
    if (vpp > 64) refuse("exec.vpp", "at most 64 chunks per stage are modelled, got " + num(vpp));
    const bool vShape = isVShape(scheduleNamed(*e.pp_schedule));
    if (vShape && vpp != 2)
        refuse("exec.vpp", *e.pp_schedule + " runs two chunks per stage in a V (chunk 1 back up the stages): state vpp: 2, got " + num(vpp));
    const bool tabled = interleavesChunks(scheduleNamed(*e.pp_schedule));  // interleaved, seqsmartvpp
    if (vpp > 1 && !tabled && !vShape)
        refuse("exec.pp_schedule", "vpp = " + num(vpp) + " needs the interleaved schedule (or seqsmartvpp), got " + *e.pp_schedule);
    if (vpp == 1 && tabled)
        refuse("exec.pp_schedule", *e.pp_schedule + " needs vpp > 1 (with one chunk per stage it is " +
                                       (*e.pp_schedule == "interleaved" ? "1f1b)" : "seqpipe)"));
    if (*e.pp_schedule == "dualpipe" && pp % 2 != 0)
        refuse("exec.pp_schedule", "dualpipe runs two directions over mirrored stage pairs and needs an even pp, got " + num(pp));
    if (*e.pp_schedule == "dualpipe" && mbn && (*mbn % 2 != 0 || *mbn < 2 * pp))
        refuse("exec.micro_batch_num", "dualpipe splits the micro-batches over its two directions and needs an even count of "
                                       "at least 2 x pp (" + num(2 * pp) + ", DualPipe.step's num_chunks >= 2 * num_ranks), got " + num(*mbn));
    if (*e.pp_schedule == "zbv" && mbn && *mbn < 2 * pp - 1)
        refuse("exec.micro_batch_num", "zbv's steady state needs at least 2 x pp - 1 (" + num(2 * pp - 1) +
                                       ") micro-batches (PyTorch's ScheduleZBVZeroBubble), got " + num(*mbn));
    if (*e.pp_schedule == "dualpipev" && mbn && *mbn < 2 * pp)
        refuse("exec.micro_batch_num", "dualpipev needs at least 2 x pp (" + num(2 * pp) +
                                       ", DualPipeV.step's num_chunks >= 2 * num_ranks) micro-batches, got " + num(*mbn));
    if (tabled && mbn && *mbn % pp != 0)
        refuse("exec.micro_batch_num", "the " + *e.pp_schedule + " schedule runs micro-batches in groups of pp (" + num(pp) +
                                           "): must be a multiple of it, got " + num(*mbn));
    // A sequence pipeline splits each micro-batch's sequence; no other schedule does.
    const bool sequenced = runsSequenceParts(scheduleNamed(*e.pp_schedule));
    if (e.seq_split && *e.seq_split > 1 && !sequenced)
        refuse("exec.seq_split", "only pp_schedule seqpipe and seqsmartvpp run a micro-batch in sequence parts, got "
                                 "pp_schedule " + *e.pp_schedule + " (state one of them, or leave seq_split out)");
    if (*e.pp_schedule == "seqsmartvpp" && e.seq_split && pp % *e.seq_split != 0)
        refuse("exec.seq_split", "seqsmartvpp walks the interleaved table in groups of pp (" + num(pp) + ") parts and runs "
                                 "each micro-batch's backwards last part first, so its parts must not straddle two "
                                 "groups: must divide pp, got " + num(*e.seq_split));
    if (sequenced && e.seq_length && e.seq_split && cp > 1 && *e.cp_algo == "colossalai_cp" &&
        (*e.seq_length / *e.seq_split) % (2 * cp) != 0)
        refuse("exec.seq_split", "each sequence part (" + num(*e.seq_length / *e.seq_split) + " tokens) is split over the "
                                 "context-parallel ring in 2·cp chunks: it must be a multiple of " + num(2 * cp));
    // Overlap that follows the schedule (Megatron-LM's rules for its switches).
    const bool interleaved = *e.pp_schedule == "interleaved";
    if (e.overlap_p2p_comm && *e.overlap_p2p_comm && pp > 1 && !tabled)
        refuse("exec.overlap_p2p_comm", "Megatron-LM overlaps pipeline sends in the interleaved schedule only (it turns "
                                        "--overlap-p2p-communication off otherwise; Seq1F1B-I keeps that path), got "
                                        "pp_schedule " + *e.pp_schedule);
    fill("exec.overlap_p2p_comm", e.overlap_p2p_comm, tabled, Origin::Derived,
         "pp_schedule " + *e.pp_schedule + " (Megatron-LM overlaps sends in the interleaved schedule)");
    if (*e.overlap_moe_expert_parallel_comm && isMoe(m) && ep == 1)
        refuse("exec.overlap_moe_expert_parallel_comm", "needs ep > 1: without expert parallelism there is no all-to-all to hide");
    if (*e.overlap_moe_expert_parallel_comm && pp > 1 && !interleaved)
        refuse("exec.overlap_moe_expert_parallel_comm", "Megatron-LM pairs micro-batches for it at pp 1 or in the interleaved "
                                                        "schedule only, got pp_schedule " + *e.pp_schedule +
                                                        (*e.pp_schedule == "dualpipe" || *e.pp_schedule == "dualpipev"
                                                             ? " (whose F&B pairs overlap the all-to-all by construction)" : ""));
    {  // what a price by simulation would walk (closedform.h)
        const Schedule schedule = scheduleNamed(*e.pp_schedule);
        const bool paired = *e.overlap_moe_expert_parallel_comm && isMoe(m) && ep > 1 && !pricedBySimulation(schedule);
        if (mbn && tooLongToSimulate(schedule, paired, pp, vpp, *mbn))
            refuse("exec.micro_batch_num", *e.pp_schedule + (paired ? " with overlap_moe_expert_parallel_comm" : "") +
                                               " is priced by simulating the schedule, 3 events a micro-batch, chunk and "
                                               "stage: at most " + num(kMaxPricedEvents) + ", got " +
                                               num(simulatedEvents(pp, simulatedChunks(schedule, vpp), *mbn)) + " (" +
                                               num(*mbn) + " micro-batches)");
    }
    if (e.offset && e.pp_partition) refuse("exec.offset", "state offset or pp_partition, not both");
    const std::int64_t textless = visionStages(e, m, pp, vpp) - 1;
    const std::int64_t mtp = m.mtp_depth.value_or(0);
    m_out.totalLayers = *m.num_hidden_layers + (*e.mtp_in_offset ? mtp : 0);
    // Not past the 64 chunks refused above: pp·vpp would overflow, and the grid is vpp long.
    if (vpp <= 64) {
        auto partition = partitionLayers(m_out.totalLayers, pp, vpp, e.offset, e.pp_partition, std::max<std::int64_t>(textless, 0));
        if (auto* error = std::get_if<std::string>(&partition))
            refuse(e.pp_partition ? "exec.pp_partition" : e.offset ? "exec.offset" : "exec.pp", *error);
        else m_out.partition = std::get<Partition>(partition);
    }

    // Offload: over a host link the device states, at most the layers a stage holds.
    const DeviceSpec* device = cluster().device ? &*cluster().device : nullptr;
    const std::vector<std::int64_t>* perStage = e.activation_offload ? std::get_if<StageCounts::Flat>(&e.activation_offload->value) : nullptr;
    const std::int64_t* everyStage = e.activation_offload ? std::get_if<std::int64_t>(&e.activation_offload->value) : nullptr;
    const bool offloading = (everyStage && *everyStage > 0) ||
                            (perStage && std::any_of(perStage->begin(), perStage->end(), [](std::int64_t k) { return k > 0; }));
    if (offloading && device && !device->host_link_gbps)
        refuse("exec.activation_offload", "copies to the host, and the device states no host_link_gbps (its PCIe or "
                                          "NVLink-C2C bandwidth): state cluster.device.host_link_gbps");
    if (e.optimizer_offload && *e.optimizer_offload > 0 && device && (!device->host_link_gbps || !device->host_memory_gbps))
        refuse("exec.optimizer_offload", "steps the optimizer on the host, and the device states no " +
                                             std::string(!device->host_link_gbps ? "host_link_gbps" : "host_memory_gbps") +
                                             ": state it under cluster.device");
    if (perStage && std::int64_t(perStage->size()) != pp)
        refuse("exec.activation_offload", "one count per stage: pp = " + num(pp) + " stages, got " + num(std::int64_t(perStage->size())));
    if (offloading && m_out.partition.layers.size() == std::size_t(vpp) && vpp <= 64) {
        for (std::int64_t s = 0; s < pp; ++s) {
            const std::int64_t k = perStage && std::int64_t(perStage->size()) == pp ? (*perStage)[std::size_t(s)] : everyStage ? *everyStage : 0;
            const std::int64_t held = m_out.partition.layers.front()[std::size_t(s)];
            if (k > held) {
                refuse("exec.activation_offload", "stage " + num(s) + " runs " + num(held) + " layers in its first chunk, "
                                                  "and " + num(k) + " are to offload");
                break;
            }
        }
    }

    // Recompute: one form at a time, ranges inside the model.
    if (e.recompute && (e.full_recompute || e.selective_recompute))
        refuse("exec.recompute", "replaces full_recompute and selective_recompute; state one form");
    if (e.recompute) {
        const std::int64_t layers = *m.num_hidden_layers + mtp;
        for (std::size_t i = 0; i < e.recompute->size(); ++i) {
            const RecomputeRange& r = (*e.recompute)[i];
            const std::string at = "exec.recompute[" + std::to_string(i) + "]";
            // first + count can pass 2^63-1 (both are any whole number): compare by difference.
            if (r.first >= layers || r.count.value_or(1) > layers - r.first) {
                std::int64_t last = 0;
                const bool lastFits = r.count && !__builtin_add_overflow(r.first, *r.count - 1, &last);
                refuse(at, "covers layers " + num(r.first) + (r.count ? "-" + (lastFits ? num(last) : std::string("past 2^63-1")) : "+") +
                               ", but the model has " + num(layers) + " (body and MTP layers, counted from 0)");
            }
        }
    }
    if (!*e.sequence_parallel && e.selective_comm_recompute &&
        !(std::holds_alternative<bool>(e.selective_comm_recompute->value) && !std::get<bool>(e.selective_comm_recompute->value)))
        refuse("exec.selective_comm_recompute", "recomputes the sequence-parallel all-gather, and sequence_parallel is false");
}

}  // namespace tessera::core::detail

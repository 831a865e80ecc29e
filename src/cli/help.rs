//! The command line's help: an overview of every command (`libra-studio --help`) and each
//! command's own page (`libra-studio route --help`, `libra-studio help route`).

/// One command: its name, a one-line summary for the overview, and its page.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    /// Usage and options, without the sections every page shares.
    pub page: &'static str,
    /// Whether the command reads a scenario (so its page adds the scenario input section).
    pub reads_scenario: bool,
}

const SCENARIO_INPUT: &str = "\
Scenario input, either
  --scenario S.json                    a Scenario JSON (`-` reads it from standard input)
or LIBRA's four files
  --network NET.yml --cost COST.yml --workload W.txt --communicator COMM.yml
with the model options
  --training-loop no-overlap|overlap   (default no-overlap, as LIBRA)
  --combine max|sum                    per-dimension times: pipelined max (LIBRA) or sum
  --latency                            add each dimension's latency_ns per collective step
  --name NAME                          the scenario's name in the output
";

const CONSTRAINTS: &str = "\
Constraints (added to the scenario's own):
  --total-bw X                sum of B = X GB/s (LIBRA's total_bw_500gbps is --total-bw 500)
  --total-bw-max X            sum of B <= X
  --budget USD                network cost <= USD
  --min D=V, --max D=V        bounds on dimension D's bandwidth (repeatable)
  --constraint 'TEXT'         a linear constraint, e.g. 'B1 >= B2', 'B3 + B4 = 200' (repeatable)
  --objective time|time-x-cost|cost   (cost needs --time-target NS)
  --gap G                     stop at a certified relative gap of G (default 1e-6)
  --method M                  interior-point (default: a barrier method, a few Newton steps) or
                              projected-gradient (accelerated, many cheap steps; it stops with its
                              certified gap after 20,000 steps); both end on the same certificate
  --efficiency D=ETA          routing efficiency of dimension D in (0, 1] (see `route`): times use
                              ETA x B_D, cost the provisioned B_D (repeatable)
";

/// What every page ends with.
pub const CONVENTIONS: &str = "\
Files: `-` reads standard input (one input per run); `--` ends the options.
Exit status: 0 done; 1 the input is invalid or the problem infeasible: a file, or an option's
well-formed value, that the model refuses (the message names the file, line or field and the
rule); 2 the command line is malformed: an unknown command or option, a missing value, a value
that is not of its option's form, an unexpected argument.
";

pub const COMMANDS: [Command; 17] = [
    Command {
        name: "evaluate",
        summary: "time and cost of a scenario at given bandwidths, as JSON",
        page: "\
Usage: libra-studio evaluate SCENARIO-INPUT [--bw 200,100,50,150]

  --bw B1,B2,...   GB/s per NPU, one per dimension (default: the uniform split of the scenario's
                   total bandwidth)

Prints time_ns, cost_usd, bw_gbps, compute_ns, comm_ns, time_x_cost (LIBRA's PerfPerCost) and the
breakdown per phase kind and dimension.
",
        reads_scenario: true,
    },
    Command {
        name: "optimize",
        summary: "the optimal bandwidth of every dimension, with a certified optimality gap",
        page: "\
Usage: libra-studio optimize SCENARIO-INPUT [constraints] [--timings]

Prints bw_gbps, time_ns, cost_usd, objective_value, lower_bound, gap (certified), method,
iterations, idle_dims, the uniform split for comparison and the patterns; --timings adds solve_us.
",
        reads_scenario: true,
    },
    Command {
        name: "pareto",
        summary: "the front of cost against training time over a range of budgets, JSON or CSV",
        page: "\
Usage: libra-studio pareto SCENARIO-INPUT --budgets LO:HI:N [constraints] [--csv]

  --budgets LO:HI:N   N budgets from LO to HI dollars, log-spaced
  --csv               CSV instead of JSON
",
        reads_scenario: true,
    },
    Command {
        name: "scenario",
        summary: "the Scenario JSON of LIBRA's input files, or of one co-design candidate",
        page: "\
Usage: libra-studio scenario SCENARIO-INPUT [--total-bw X]
       libra-studio scenario --model M --npus N --tp T [--cp C] --pp P --dp D [--ep E] --shape S
                             [--micro-batch B] [--mapping tp-pp-dp|tp-dp-pp] [--budget USD]
                             [--system dgx-a100] [--kv-heads K] [--mlp gelu|swiglu]
                             [--virtual-stages V] [--zero 0|1|2|3] [--dtype bf16|fp8]
                             [--experts E --top-k K --expert-ffn F --shared-experts S
                              --moe-layers all|after:K|every:N --capacity-factor C]

  --total-bw X   add LIBRA's total-bandwidth constraint (sum B = X)
  --model ...    one co-design candidate as a scenario (optimize --scenario gives its time);
                 any preset, mixtral-8x7b, mixtral-8x22b and deepseek-v3 included
  --cp C         context parallelism: keys and values all-gathered over the CP groups
  --ep E         expert parallelism carved from each stage's TP x CP x DP ranks: the MoE
                 layers' dispatch and combine all-to-alls over the EP groups
  --virtual-stages V   V model chunks per stage (interleaved 1F1B): (PP - 1)/V bubble slots,
                 V times the stage-to-stage sends
  --zero Z       the gradients all-reduced (0), reduce-scattered and the updated weights
                 all-gathered (1, 2), or also gathered for the backward pass (3: 1.5 times the bytes)
  --dtype fp8    the experts' tokens dispatched in FP8 (1 byte); with --system the products run
                 at the accelerator's FP8 peak (refused where it has none). TP with sequence
                 parallelism is assumed: its reduce-scatter and all-gather move an all-reduce's bytes
  --system S     time its compute on a real system (docs/predict.md: matrix products by shape,
                 memory-bound kernels, recomputation, host time per layer, the Adam step) instead
                 of --peak-tflops x --efficiency; the network stays the design's
",
        reads_scenario: true,
    },
    Command {
        name: "codesign",
        summary: "which parallelism, network shape and bandwidths train a transformer fastest",
        page: "\
Usage: libra-studio codesign --model gpt3-175b|llama2-70b|bloom-176b|mt-nlg-530b|llama3-8b|
                             llama3-70b|llama3-405b|mixtral-8x7b|mixtral-8x22b|deepseek-v3|
                             custom --npus N
                             (--budget USD | --budgets LO:HI:N) [options]

  --hbm-gb G                 memory per NPU (default 80, or the --system accelerator's)
  --system NAME|FILE.json    search on a real system (`libra-studio systems`): its network for
                             N (unless --shape), its tiers and prices (unless --cost; LIBRA's
                             tiers stay available to --shape), its accelerator's HBM, and each
                             candidate's compute timed by the step model (docs/predict.md)
  --rank-budget USD          the budget of the ranked table (with --budgets)
  --shape \"R4 x FC8 x R4 x SW32\"   one network shape instead of every shape (a dimension
                             may name its tier: SW8:nvlink4 x SW512:ib-ndr)
  --cost COST.yml            LIBRA's cost model (`-` reads standard input)
  --recompute selective|full, --zero3
  --timings                  add search_ms
  custom: --layers --hidden --heads --seq-len --global-batch [--ffn --vocab --peak-tflops
          --efficiency]

Searches TP x CP x PP x DP, EP (models with experts), the micro-batch, interleaving (2 to 8
virtual stages) and the lay order. Prints best, front, winners, ranked, evaluated and pruned.
",
        reads_scenario: false,
    },
    Command {
        name: "route",
        summary:
            "route a Clos scenario and print its link loads, max-min rates and All-Reduce times",
        page: "\
Usage: libra-studio route SCENARIO.json [--algorithm A] [options]   (`-`: standard input)

  --algorithm ecmp|greedy|greedy-capacity-aware|edge-coloring|annealing|optimal|multi-flow-ecmp|
              annealing-authors   (default greedy)
  annealing:  --seed K (default 1), --moves N (default 200,000)
  annealing-authors: the paper's annealing as its authors' code runs it, --seed K (default 1234)
  multi-flow-ecmp: --flows K sub-flows per ring edge, each hashed on its own (default 16, as
              Llama 3 trained; 1 to 64); loads, rates and the routing are per sub-flow
  optimal:    --objective flow-lex|job-lex|min-max-link-load|min-makespan (default flow-lex)
              --node-budget N (default 10,000,000 search nodes)
              --time-limit S (default 5 s; progress on standard error)
  --export-ilp OUT.lp   write the paper's ILP (min max flows on a link) in CPLEX LP format
                        instead of routing
  --timings             add routing_us (and optimize_ms for optimal)

The scenario format is in docs/routing.md.
",
        reads_scenario: false,
    },
    Command {
        name: "route-scenario",
        summary: "a generated routing scenario (JSON) for route",
        page: "\
Usage: libra-studio route-scenario [--tors T --spines S --hosts-per-tor H --jobs J --ring-size R
                                    --failed-spines F --failed-links L --seed K --chunk-bytes B
                                    --link-gbps G (100) --nic-gbps G (the links')]
                                   [--models gpt3,bloom,llama2] [--system NAME|FILE.json]

  --system   one plane of the system's leaf-spine fabric (a DGX H100 rail: 64 ToRs of 32 NICs,
             32 spines, 400 Gb/s), whose fields the other options may still change

  --models   the paper's jobs (TP x PP shards, one ring per shard, chunk = FP32 weights / shards /
             ring size) on the paper's fabric by default (64 ToRs x 32 spines, 32 NICs per ToR)
",
        reads_scenario: false,
    },
    Command {
        name: "trace",
        summary: "a generated job trace (JSON) for simulate",
        page: "\
Usage: libra-studio trace [options] > trace.json

  --tors T --spines S --hosts-per-tor H   the fabric (default the paper's 64 x 32 x 32)
  --link-gbps G --nic-gbps G              line rates (default 400)
  --jobs J (200)  --arrival-rate PER_S (0.5, Poisson)  --iterations I (10)  --compute-s C (1)
  --ring-size R (4)  --chunk-bytes B (default: each model's FP32 weights / shards / ring size)
  --mix gpt3,bloom,llama2                 the models drawn (default all three)
  --failed-spines F  --failed-links L     the first spines, and uplinks spread over the ToRs
  --fail-at S (0)  --recover-at S (never) when they fail and recover
  --seed K (1)
",
        reads_scenario: false,
    },
    Command {
        name: "simulate",
        summary: "a cluster over time under a routing policy: job completion times and throughput",
        page: "\
Usage: libra-studio simulate TRACE.json [options]   (`-`: standard input)

  --policy ecmp|greedy|edge-coloring|annealing|optimal|multi-flow-ecmp   (default greedy)
  --reroute arrival|every:SECONDS|never                 when the controller recomputes routes
  --placement whole-tors|scattered                      (default whole-tors)
  --controller-delay S    routes take effect S seconds after their trigger (default 0)
  --timeline              add the running, waiting and communicating counts at each event
  --timings               add controller_s (the wall time spent routing)

Prints jobs (id, arrival_s, start_s, end_s, jct_s, comm_s, slowdown), mean_jct_s, makespan_s,
throughput, busy_fraction, comm_fraction and reroutes.
",
        reads_scenario: false,
    },
    Command {
        name: "sweep",
        summary: "the routing paper's axes, every policy on the same traces",
        page: "\
Usage: libra-studio sweep --axis failed-spines|ring-size|concurrent-jobs [trace options]
                          [--policies ecmp,greedy,...] [--reroute ...] [--placement ...]

The axes: 0/1/4/8 failed spines, rings of 2/4/8, 1 to 5 jobs at once. JSON rows per value and
policy: mean_jct_s, makespan_s, throughput, mean_slowdown.
",
        reads_scenario: false,
    },
    Command {
        name: "predict",
        summary: "one training iteration of a transformer on a real system, as JSON",
        page: "\
Usage: libra-studio predict --system NAME|SYSTEM.json --model custom|gpt3-175b|llama3-405b|...
                            [--layers L --hidden H --ffn F --heads A --seq-len S --global-batch G]
                            [--kv-heads K] [--mlp gelu|swiglu] [--vocab V]
                            [--experts E --top-k K --expert-ffn F [--shared-experts S]
                             [--moe-layers all|after:K|every:N] [--capacity-factor C]
                             [--node-limit M]]
                            --micro-batch B --npus N --tp T [--cp C] --pp P [--ep E] --dp D
                            [--recompute none|selective|full] [--virtual-stages V]
                            [--overlap-dp] [--overlap-ep] [--flash-attention]
                            [--sequence-parallel] [--zero 0|1|2|3] [--dtype bf16|fp8]

A Megatron-style transformer (TP innermost, then CP, then DP, then PP; 1F1B; gradients reduced
after the backward pass) timed by the shape of its work on the system's accelerator and tiers
(docs/predict.md). Models: gpt3-175b, llama2-70b, bloom-176b, mt-nlg-530b, llama3-8b/70b/405b,
mixtral-8x7b, mixtral-8x22b, deepseek-v3 (its MLA exactly, its multi-token prediction left
out), or custom; a preset's sizes can be overridden. Prints time_ns, compute_ns,
exposed_comm_ns, tflops_per_npu (model FLOPs without recomputation), tokens_per_s_per_npu, mfu
(over the dense BF16 peak), memory_gb, fits (the HBM) and a breakdown by kind of traffic (TP,
CP, EP, pipeline, DP). The system defaults to dgx-a100 (calibrated on measured runs); --vocab
defaults to GPT-2's 50,257 for custom models, --recompute to full.

  --cp C              context parallelism: the sequence over C ranks, keys and values passed
                      around the CP ring behind the attention core
  --ep E              expert parallelism folded into the stage's TP x CP x DP ranks (experts
                      whole on a GPU); a MoE with TP > 1 needs --sequence-parallel
  --node-limit M      node-limited routing: at most M copies of a token leave its node
  --overlap-ep        EP's all-to-alls behind another micro-batch's compute (DualPipe)
  --virtual-stages V  V model chunks per stage (interleaved 1F1B: V times the sends, 1/V of
                      the bubble)
  --overlap-dp        the DP gradients reduced during the last backward pass
  --dtype fp8         the layers' weight products at the FP8 peak, MoE dispatch in FP8
",
        reads_scenario: false,
    },
    Command {
        name: "calibrate",
        summary: "fit a system's efficiencies and latencies to measured runs",
        page: "\
Usage: libra-studio calibrate --system NAME|SYSTEM.json --runs RUNS.csv [--runs MORE.csv ...]
                              [--hold PARAMETER,...]

Least squares on the log of predicted over measured time, every file weighing the same. RUNS.csv
has the columns of data/measured/megatron-a100-visible.csv (the parameter count may be left out).
Prints the fitted system (a file every command takes) and, on standard error, each run's
predicted and measured time. A row that cannot be laid on the system is refused by line and rule;
a fit that does not converge says so and prints nothing. --hold keeps parameters at the starting
system's values (compute.gemm, compute.memory, compute.kernel_us, compute.host_us_per_layer,
scale_up.efficiency, scale_up.latency_us, scale_out.efficiency, scale_out.latency_us).
",
        reads_scenario: false,
    },
    Command {
        name: "validate",
        summary: "a system's predictions against measured runs (errors, Spearman)",
        page: "\
Usage: libra-studio validate --system NAME|SYSTEM.json --runs RUNS.csv [--runs MORE.csv ...]

Every run predicted: the absolute relative error (mean, median, worst, per model), Spearman's
rank correlation within each model and the measured time of the configuration predicted fastest
over the measured fastest. JSON on standard output, a table on standard error.
",
        reads_scenario: false,
    },
    Command {
        name: "published",
        summary:
            "published training runs (Megatron, Llama 3, DeepSeek-V3, Mixtral) against predict",
        page: "\
Usage: libra-studio published

Every published run the tool is held against (src/predict/published.rs: Korthikanti et al.
2022's Table 5 on A100s, Llama 3 405B on Meta's cluster, DeepSeek-V3 on H800s and H100s,
Mixtral and Llama 3 on DGX H100 from NVIDIA's published benchmarks), predicted as `predict`
would, beside the reported figure (seconds, TFLOP/s or tokens/s per GPU) and its source. JSON on
standard output, a table on standard error. Nothing here was fitted to these figures.
",
        reads_scenario: false,
    },
    Command {
        name: "systems",
        summary: "the systems presets (accelerator, network tiers, limits, prices) as JSON",
        page: "\
Usage: libra-studio systems [NAME] [--npus N]

Every preset (dgx-a100, dgx-h100, dgx-b200, gb200-nvl72, tpu-v4, tpu-v5p, trn2-ultraserver,
meta-roce-24k, hgx-h800), or the one named: its accelerator's figures, its network's tiers
(bandwidth per accelerator and direction, oversubscription, latency, the most accelerators a
dimension joins, $ per GB/s of links, switch ports and NICs with where each price comes from) and
its dimensions, innermost first. With --npus N, each is also laid for N accelerators: its shape
with each dimension's tier (SW8:nvlink4 x SW512:ib-ndr), its own bandwidths and their cost.
Sources: docs/systems.md. `--system NAME|SYSTEM.json` takes a preset or such a file in predict,
calibrate, validate, scenario --model and codesign.
",
        reads_scenario: false,
    },
    Command {
        name: "permalink",
        summary: "the link (#v1=...) that opens a scenario in the app, and back",
        page: "\
Usage: libra-studio permalink SCENARIO-INPUT [--base-url URL]
       libra-studio permalink --decode LINK

  --base-url URL   print the whole link URL#v1=... (URL: where the app is published)
  --decode LINK    the Scenario JSON a link carries
",
        reads_scenario: true,
    },
    Command {
        name: "network",
        summary: "the default network (LIBRA's 4D shape), its NPU count and uniform-split cost",
        page: "\
Usage: libra-studio network
",
        reads_scenario: false,
    },
];

/// The overview: every command with its summary.
pub fn overview() -> String {
    let mut text = String::from(
        "libra-studio: design the networks that train large AI models (LIBRA cost and time model)\n\n\
         Usage: libra-studio <command> [options]\n       libra-studio <command> --help\n\nCommands:\n",
    );
    for c in &COMMANDS {
        text.push_str(&format!("  {:<15}{}\n", c.name, c.summary));
    }
    text.push_str(
        "\nOptions:\n  -h, --help     print this help (or a command's, after it)\n  \
         -V, --version  print the version\n\n",
    );
    text.push_str(CONVENTIONS);
    text.push_str("The browser app is served with `make serve`; see README.md.\n");
    text
}

/// The page of `name`, if it is a command.
pub fn page(name: &str) -> Option<String> {
    let c = COMMANDS.iter().find(|c| c.name == name)?;
    let mut text = format!("libra-studio {}: {}\n\n{}", c.name, c.summary, c.page);
    if c.reads_scenario {
        text.push('\n');
        text.push_str(SCENARIO_INPUT);
    }
    if matches!(c.name, "optimize" | "pareto") {
        text.push('\n');
        text.push_str(CONSTRAINTS);
    }
    text.push('\n');
    text.push_str(CONVENTIONS);
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_page_and_a_line_in_the_overview() {
        let all = overview();
        for c in &COMMANDS {
            assert!(all.contains(&format!("  {:<15}{}", c.name, c.summary)));
            let p = page(c.name).unwrap();
            assert!(
                p.contains(&format!("Usage: libra-studio {}", c.name)),
                "{}",
                c.name
            );
            assert!(p.contains("Exit status"));
        }
        assert!(page("frobnicate").is_none());
    }
}

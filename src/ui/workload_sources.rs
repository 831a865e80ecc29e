//! Custom workloads: built from a transformer description (TP/PP/DP laid onto the network), or an
//! ASTRA-sim text file (picked or pasted) with its parallelism or LIBRA's communicator YAML. The
//! staging fields live here; reading and building is `form::workload_source`.

use super::network_import::TextSource;
use super::studio::Studio;
use crate::form::workload_source::{
    import_workload, GroupsSource, TransformerForm, TRANSFORMER_FIELDS,
};
use crate::model::builder::{DpCollective, Transformer};
use crate::predict::models::ModelPreset;
use leptos::prelude::*;

fn network_or_message(studio: Studio) -> Result<crate::model::Network, String> {
    studio
        .form
        .with_untracked(|f| f.typed_network())
        .ok_or_else(|| "fix the network's NPU counts first".to_string())
}

/// Add the workload `result` holds and say so in `message` (with `note` after the layer count),
/// or say why not.
fn add_and_report(
    studio: Studio,
    message: RwSignal<Option<Result<String, String>>>,
    result: Result<
        (
            crate::model::scenario::WorkloadSpec,
            String,
            Option<Transformer>,
        ),
        String,
    >,
) {
    message.set(Some(result.map(|(spec, note, built)| {
        let text = format!(
            "added \"{}\" ({} layers{note})",
            spec.name,
            spec.workload.layers.len()
        );
        studio.restructure(|f| match built {
            Some(t) => f.add_built(spec, t),
            None => f.add_spec(spec),
        });
        text
    })));
}

/// The transformer builder.
#[component]
pub fn TransformerBuilder(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let form = RwSignal::new(TransformerForm::of(&Transformer::gpt3()));
    let message = RwSignal::new(None::<Result<String, String>>);
    let add = move |_| {
        let result = network_or_message(studio).and_then(|net| {
            form.with_untracked(|f| {
                let hbm = f.memory().map(|m| m.0).unwrap_or_default();
                f.build(&net)
                    .and_then(|(spec, memory)| {
                        let note = format!(
                            "; {:.2} GB per NPU of its {hbm} GB of HBM",
                            memory.total_bytes / 1e9
                        );
                        Ok((spec, note, Some(f.read()?)))
                    })
                    .map_err(|e| e.to_string())
            })
        });
        add_and_report(studio, message, result);
    };
    let pick = move |ev| {
        let key = event_target_value(&ev);
        if let Some(p) = ModelPreset::parse(&key) {
            form.update(|f| *f = f.with_preset(p));
        }
    };
    view! {
        <details class="source" data-testid="builder">
            <summary>"Build one from a transformer (GPT-3 175B as the example)"</summary>
            <div class="builder-grid">
                <label>
                    "model"
                    <select data-testid="builder-preset" on:change=pick>
                        {ModelPreset::ALL
                            .iter()
                            .map(|p| {
                                let t = p.transformer();
                                view! {
                                    <option value=p.key() selected=*p == ModelPreset::Gpt3>
                                        {t.name}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    "name"
                    <input
                        type="text"
                        data-testid="builder-name"
                        prop:value=move || form.with(|f| f.name.clone())
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            form.update(|f| f.name = v);
                        }
                    />
                </label>
                {TRANSFORMER_FIELDS
                    .iter()
                    .enumerate()
                    .map(|(i, label)| {
                        view! {
                            <label>
                                {*label}
                                <input
                                    type="text"
                                    inputmode="decimal"
                                    data-testid=format!("builder-{i}")
                                    prop:value=move || form.with(|f| f.values[i].clone())
                                    on:input=move |ev| {
                                        let v = event_target_value(&ev);
                                        form.update(|f| f.values[i] = v);
                                    }
                                />
                            </label>
                        }
                    })
                    .collect_view()}
                <label>
                    "gradients over DP"
                    <select on:change=move |ev| {
                        let v = event_target_value(&ev);
                        form.update(|f| {
                            f.dp_collective = match v.as_str() {
                                "rs-ag" => DpCollective::ReduceScatterAllGather,
                                "zero3" => DpCollective::Zero3,
                                _ => DpCollective::AllReduce,
                            }
                        });
                    }>
                        <option value="ar" selected=true>"all-reduce"</option>
                        <option value="rs-ag">"reduce-scatter + all-gather (ZeRO 1-2)"</option>
                        <option value="zero3">"ZeRO-3 / FSDP (weights gathered twice)"</option>
                    </select>
                </label>
            </div>
            <p class="hint" data-testid="builder-architecture">
                {move || {
                    let note = form.with(|f| f.architecture_note());
                    (!note.is_empty()).then(|| format!("The model's architecture: {note}."))
                }}
            </p>
            <p class="hint">
                "TP lies on the innermost dimensions, then CP, then PP, then DP; TP × CP × PP × DP must \
                 equal the NPU count, and EP is carved from each stage's TP × CP × DP ranks (the experts' \
                 all-to-alls run over its groups). With PP > 1, stages send activations forward and \
                 gradients back (s·b·h·e bytes per micro-batch) over PP's dimensions, and 1F1B adds the \
                 bubble (PP − 1)/m to everything paid per micro-batch, (PP − 1)/(v m) with v virtual \
                 stages at v times the sends."
            </p>
            <button type="button" data-testid="builder-add" on:click=add>"Add this workload"</button>
            <SourceMessage message />
        </details>
    }
}

/// The outcome of the last add: what was added, or why not.
#[component]
fn SourceMessage(
    /// None before any attempt.
    message: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    move || {
        message.get().map(|m| match m {
            Ok(text) => view! { <span class="confirm" role="status" data-testid="source-message">{text}</span> }.into_any(),
            Err(e) => view! { <span class="field-error" role="alert" data-testid="source-error">{e}</span> }
                .into_any(),
        })
    }
}

/// The ASTRA-sim / LIBRA importer.
#[component]
pub fn WorkloadImport(
    /// The app state.
    studio: Studio,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let by_yaml = RwSignal::new(false);
    let degrees = RwSignal::new(("1".to_string(), "1".to_string(), "4096".to_string()));
    let yaml = RwSignal::new(String::new());
    let message = RwSignal::new(None::<Result<String, String>>);
    let add = move |_| {
        let groups = if by_yaml.get_untracked() {
            GroupsSource::LibraYaml(yaml.get_untracked())
        } else {
            let (tp, pp, dp) = degrees.get_untracked();
            GroupsSource::Degrees { tp, pp, dp }
        };
        let result = network_or_message(studio).and_then(|net| {
            import_workload(&name.get_untracked(), &text.get_untracked(), &groups, &net)
                .map(|spec| (spec, String::new(), None))
                .map_err(|e| e.to_string())
        });
        add_and_report(studio, message, result);
    };
    let degree = move |label: &'static str, k: usize| {
        view! {
            <label class="inline">
                {label}
                <input
                    type="text"
                    inputmode="numeric"
                    class="short"
                    data-testid=format!("import-{}", label.to_lowercase())
                    prop:value=move || {
                        let d = degrees.get();
                        [d.0, d.1, d.2][k].clone()
                    }
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        degrees.update(|d| match k {
                            0 => d.0 = v,
                            1 => d.1 = v,
                            _ => d.2 = v,
                        });
                    }
                />
            </label>
        }
    };
    view! {
        <details class="source" data-testid="import">
            <summary>"Import an ASTRA-sim workload (LIBRA's text format)"</summary>
            <div class="field-row">
                <label>
                    "name "
                    <input
                        type="text"
                        data-testid="import-name"
                        prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev))
                    />
                </label>
                <TextSource
                    text
                    testid="import-text"
                    placeholder="…or paste the workload text here (one layer per line: name, -1, compute ns, collective, bytes, …)"
                />
            </div>
            <div class="field-row">
                <label class="inline">
                    <input type="checkbox" on:change=move |ev| by_yaml.set(event_target_checked(&ev)) />
                    " groups from LIBRA's communicator YAML instead of TP/PP/DP"
                </label>
                <Show
                    when=move || by_yaml.get()
                    fallback=move || view! { <div class="inline">{degree("TP", 0)} {degree("PP", 1)} {degree("DP", 2)}</div> }
                >
                    <TextSource text=yaml testid="import-yaml" placeholder="Forward: [4, 4, -1, -1]" />
                </Show>
            </div>
            <button type="button" data-testid="import-add" on:click=add>"Add this workload"</button>
            <SourceMessage message />
        </details>
    }
}

//! Real systems as data (docs/systems.md): the accelerator catalog ([`accelerators`]), a system's
//! accelerator, network tiers, dimensions, limits and prices ([`system`]), and the presets
//! ([`presets`]), and a design laid on a system ([`lay`]). Every command that takes `--system`
//! reads a preset's name through [`choose_system`] or a system JSON file through [`system_file`].

pub mod accelerators;
pub mod clos;
pub mod lay;
pub mod presets;
pub mod system;

pub use presets::{system_preset, system_presets, SYSTEM_PRESETS};
pub use system::{NetworkTier, SystemDim, SystemSpec, SystemSpecError};

/// A system from its JSON, checked: a system, or what `libra-studio systems NAME` prints (a list
/// of one, with the accelerator's figures and the laid network beside it), so that a user's own
/// system starts as a preset's output with a tier edited or added.
pub fn system_from_json(text: &str) -> Result<SystemSpec, String> {
    let mut v: serde_json::Value =
        serde_json::from_str(crate::text::without_bom(text)).map_err(|e| e.to_string())?;
    if let serde_json::Value::Array(list) = v {
        let [one] = <[serde_json::Value; 1]>::try_from(list)
            .map_err(|l| format!("a list of {} systems; give one", l.len()))?;
        v = one;
    }
    if let Some(o) = v.as_object_mut() {
        o.remove("accelerator_figures");
        o.remove("at");
    }
    let s: SystemSpec = serde_json::from_value(v).map_err(|e| e.to_string())?;
    s.validate().map_err(|e| e.to_string())?;
    if accelerators::accelerator(&s.accelerator).is_none() {
        return Err(format!(
            "unknown accelerator \"{}\" (expected one of {})",
            s.accelerator,
            accelerators::accelerators()
                .iter()
                .map(|a| a.key.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(s)
}

/// A system a command or view was given: its network, tiers and prices when it has them (a
/// preset, or a file as `systems` prints one), and the step model's view of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChosenSystem {
    pub spec: Option<SystemSpec>,
    pub step: crate::predict::system::System,
}

/// Every name `--system` takes.
pub fn system_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = SYSTEM_PRESETS.to_vec();
    for n in crate::predict::system::SYSTEMS {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// The preset `name`: the step model's own preset where it has one (`dgx-a100` is calibrated on
/// the measured runs), else the system's view with the `dgx-a100` calibration's compute.
pub fn choose_system(name: &str) -> Option<ChosenSystem> {
    let spec = system_preset(name);
    let step = match crate::predict::system::System::preset(name) {
        Ok(s) => s,
        Err(_) => spec
            .as_ref()?
            .step_system(&crate::predict::system::System::dgx_a100().compute),
    };
    Some(ChosenSystem { spec, step })
}

/// A system file: a system (as `systems` prints one) or the step model's system (as
/// `calibrate` writes one).
pub fn system_file(text: &str) -> Result<ChosenSystem, String> {
    let as_spec = system_from_json(text);
    if let Ok(spec) = as_spec {
        let step = spec.step_system(&crate::predict::system::System::dgx_a100().compute);
        return Ok(ChosenSystem {
            spec: Some(spec),
            step,
        });
    }
    match crate::predict::system::System::from_json(text) {
        Ok(step) => Ok(ChosenSystem { spec: None, step }),
        Err(e) => Err(format!(
            "neither a system ({}) nor a calibrated system ({e})",
            as_spec.err().unwrap_or_default()
        )),
    }
}

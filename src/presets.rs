//! Built-in networks, cost models, workloads and communicators: LIBRA's inputs, embedded from
//! data/libra-inputs/ (astra-sim/libra `inputs/`, MIT licence, Copyright (c) 2024 Georgia Institute of
//! Technology and Intel Corporation; see data/libra-inputs/LICENSE).

use crate::model::libra_files::{communicator_from_yaml, cost_model_from_yaml, network_from_yaml};
use crate::model::scenario::{Scenario, TotalBandwidth, WorkloadSpec};
use crate::model::{astra_text, CostModel, Network, Workload};

/// The name under which the default scenario is shown.
pub const DEFAULT_SCENARIO_NAME: &str = "LIBRA GPT-3 on the 4D network";

/// The networks of LIBRA's inputs, by dimension count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LibraNetwork {
    /// Ring 16 x FullyConnected 8 x Switch 32.
    D3,
    /// Ring 4 x FullyConnected 8 x Ring 4 x Switch 32.
    D4,
}

impl LibraNetwork {
    pub const ALL: [LibraNetwork; 2] = [LibraNetwork::D3, LibraNetwork::D4];

    fn files(self) -> (&'static str, &'static str) {
        match self {
            LibraNetwork::D3 => (
                include_str!("../data/libra-inputs/network/3d_network.yml"),
                include_str!("../data/libra-inputs/cost_model/3d_cost_model.yml"),
            ),
            LibraNetwork::D4 => (
                include_str!("../data/libra-inputs/network/4d_network.yml"),
                include_str!("../data/libra-inputs/cost_model/4d_cost_model.yml"),
            ),
        }
    }

    /// LIBRA's network, each dimension with its tier's latency per step (used only when the
    /// model's latency term is on; LIBRA's own model has none).
    pub fn network(self) -> Network {
        let mut net = network_from_yaml(self.files().0).expect("embedded LIBRA network parses");
        let costs = self.cost_model();
        for d in &mut net.dims {
            d.latency_ns = costs.latency_ns(&d.tier);
        }
        net
    }

    pub fn cost_model(self) -> CostModel {
        cost_model_from_yaml(self.files().1).expect("embedded LIBRA cost model parses")
    }

    pub fn name(self) -> &'static str {
        match self {
            LibraNetwork::D3 => "3d",
            LibraNetwork::D4 => "4d",
        }
    }
}

/// The workloads of LIBRA's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LibraWorkload {
    Gpt3,
    TuringNlg,
    Msft1T,
    ResNet50,
    Dlrm,
}

impl LibraWorkload {
    pub const ALL: [LibraWorkload; 5] = [
        LibraWorkload::Gpt3,
        LibraWorkload::TuringNlg,
        LibraWorkload::Msft1T,
        LibraWorkload::ResNet50,
        LibraWorkload::Dlrm,
    ];

    /// The file stem LIBRA uses (GPT_3, Turing_NLG, MSFT_1T, ResNet_50, DLRM).
    pub fn name(self) -> &'static str {
        match self {
            LibraWorkload::Gpt3 => "GPT_3",
            LibraWorkload::TuringNlg => "Turing_NLG",
            LibraWorkload::Msft1T => "MSFT_1T",
            LibraWorkload::ResNet50 => "ResNet_50",
            LibraWorkload::Dlrm => "DLRM",
        }
    }

    pub fn parse(name: &str) -> Option<LibraWorkload> {
        let key = |s: &str| s.to_ascii_lowercase().replace(['_', '-', ' '], "");
        LibraWorkload::ALL
            .into_iter()
            .find(|w| key(w.name()) == key(name))
    }

    fn text(self) -> &'static str {
        match self {
            LibraWorkload::Gpt3 => include_str!("../data/libra-inputs/workload/GPT_3.txt"),
            LibraWorkload::TuringNlg => {
                include_str!("../data/libra-inputs/workload/Turing_NLG.txt")
            }
            LibraWorkload::Msft1T => include_str!("../data/libra-inputs/workload/MSFT_1T.txt"),
            LibraWorkload::ResNet50 => include_str!("../data/libra-inputs/workload/ResNet_50.txt"),
            LibraWorkload::Dlrm => include_str!("../data/libra-inputs/workload/DLRM.txt"),
        }
    }

    fn communicator_text(self, net: LibraNetwork) -> &'static str {
        use LibraNetwork::{D3, D4};
        use LibraWorkload::*;
        match (self, net) {
            (Gpt3, D3) => include_str!("../data/libra-inputs/communicator/GPT_3_3d.yml"),
            (Gpt3, D4) => include_str!("../data/libra-inputs/communicator/GPT_3_4d.yml"),
            (TuringNlg, D3) => include_str!("../data/libra-inputs/communicator/Turing_NLG_3D.yml"),
            (TuringNlg, D4) => include_str!("../data/libra-inputs/communicator/Turing_NLG_4D.yml"),
            (Msft1T, D3) => include_str!("../data/libra-inputs/communicator/MSFT_1T_3d.yml"),
            (Msft1T, D4) => include_str!("../data/libra-inputs/communicator/MSFT_1T_4d.yml"),
            (ResNet50, D3) => include_str!("../data/libra-inputs/communicator/ResNet_50_3d.yml"),
            (ResNet50, D4) => include_str!("../data/libra-inputs/communicator/ResNet_50_4d.yml"),
            (Dlrm, D3) => include_str!("../data/libra-inputs/communicator/DLRM_3d.yml"),
            (Dlrm, D4) => include_str!("../data/libra-inputs/communicator/DLRM_4d.yml"),
        }
    }

    pub fn workload(self) -> Workload {
        astra_text::parse(self.text()).expect("embedded LIBRA workload parses")
    }

    /// This workload with its communicator for `net`.
    pub fn spec(self, net: LibraNetwork) -> WorkloadSpec {
        let communicator = communicator_from_yaml(self.communicator_text(net), &net.network())
            .expect("embedded LIBRA communicator fits its network");
        WorkloadSpec {
            name: self.name().to_string(),
            weight: 1.0,
            workload: self.workload(),
            communicator,
        }
    }
}

/// LIBRA's scenario for `workload` on `net`, with its `total_bw_500gbps` constraint.
pub fn libra_scenario(workload: LibraWorkload, net: LibraNetwork) -> Scenario {
    let spec = workload.spec(net);
    let mut sc = Scenario::single(
        format!("LIBRA {} on the {} network", workload.name(), net.name()),
        net.network(),
        net.cost_model(),
        spec.name,
        spec.workload,
        spec.communicator,
    );
    sc.constraints.total_bw = Some(TotalBandwidth::Equal(500.0));
    sc
}

/// What a plain visit shows: LIBRA's GPT-3 on the 4D network, total bandwidth 500 GB/s.
pub fn default_scenario() -> Scenario {
    let mut s = libra_scenario(LibraWorkload::Gpt3, LibraNetwork::D4);
    s.name = DEFAULT_SCENARIO_NAME.to_string();
    s
}

/// LIBRA's 4D network (inputs/network/4d_network.yml): Ring 4 × FullyConnected 8 × Ring 4 × Switch 32 = 4096 NPUs.
pub fn libra_4d_network() -> Network {
    LibraNetwork::D4.network()
}

/// LIBRA's 4D cost model (inputs/cost_model/4d_cost_model.yml), $ per GB/s.
pub fn libra_4d_cost_model() -> CostModel {
    LibraNetwork::D4.cost_model()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::astra_text;

    #[test]
    fn every_preset_builds_and_validates() {
        for net in LibraNetwork::ALL {
            for w in LibraWorkload::ALL {
                let s = libra_scenario(w, net);
                s.validate().unwrap_or_else(|e| panic!("{}: {e}", s.name));
            }
        }
        assert_eq!(libra_4d_network().total_npus(), Ok(4096));
        assert_eq!(LibraNetwork::D3.network().total_npus(), Ok(4096));
    }

    #[test]
    fn every_workload_file_round_trips() {
        for w in LibraWorkload::ALL {
            let parsed = w.workload();
            let again = astra_text::parse(&astra_text::write(&parsed)).unwrap();
            assert_eq!(again, parsed, "{}", w.name());
        }
        assert_eq!(LibraWorkload::Gpt3.workload().layers.len(), 18);
        assert_eq!(LibraWorkload::ResNet50.workload().layers.len(), 54);
    }

    #[test]
    fn workload_names_parse_loosely() {
        assert_eq!(LibraWorkload::parse("gpt-3"), Some(LibraWorkload::Gpt3));
        assert_eq!(
            LibraWorkload::parse("ResNet_50"),
            Some(LibraWorkload::ResNet50)
        );
        assert_eq!(LibraWorkload::parse("bert"), None);
    }

    #[test]
    fn scenario_json_round_trips() {
        let s = default_scenario();
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
    }
}

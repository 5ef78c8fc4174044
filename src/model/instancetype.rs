use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// `VirtualMachineInstancetypeSpec` (both instance-type kinds).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InstancetypeSpec {
    /// `None` = not set; `Some(empty)` is set and still applied (and conflicts).
    pub node_selector: Option<IndexMap<String, String>>,
    #[serde(default)]
    pub scheduler_name: String,
    #[serde(default)]
    pub cpu: InstancetypeCpu,
    #[serde(default)]
    pub memory: InstancetypeMemory,
    #[serde(default)]
    pub gpus: Vec<Value>,
    #[serde(default)]
    pub host_devices: Vec<Value>,
    pub io_threads_policy: Option<String>,
    pub io_threads: Option<IoThreads>,
    pub launch_security: Option<Value>,
    pub annotations: Option<IndexMap<String, String>>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InstancetypeCpu {
    #[serde(default)]
    pub guest: u32,
    pub model: Option<String>,
    #[serde(rename = "dedicatedCPUPlacement")]
    pub dedicated_cpu_placement: Option<bool>,
    pub numa: Option<Value>,
    pub isolate_emulator_thread: Option<bool>,
    pub realtime: Option<Value>,
    pub max_sockets: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InstancetypeMemory {
    /// A quantity (JSON string or number).
    #[serde(default)]
    pub guest: Value,
    pub hugepages: Option<Value>,
    #[serde(default)]
    pub overcommit_percent: i64,
    pub max_guest: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct IoThreads {
    pub supplemental_pool_thread_count: Option<u32>,
}

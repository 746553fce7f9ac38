// What the four programs of havlak-lab's one-machine Buildbarn cluster
// share. `buildbarn run` (tools/buildbarn) starts them with these
// environment variables set; Buildbarn's programs expose their environment
// to Jsonnet as external variables (std.extVar).
//
//   BB_STATE_DIR                  where storage, build directories and logs live
//   BB_FRONTEND_ADDRESS           host:port Bazel talks to (bb_storage)
//   BB_FRONTEND_TLS_CERT, _KEY    PEM files; both empty: plain text
//   BB_STORAGE_INTERNAL_ADDRESS   host:port of bb_storage for the cluster itself
//   BB_SCHEDULER_CLIENT_ADDRESS   host:port where bb_storage sends Execute calls
//   BB_SCHEDULER_WORKER_ADDRESS   host:port where workers ask for work
//   BB_SCHEDULER_ADMIN_ADDRESS    host:port of the scheduler's web page
//   BB_RUNNER_SOCKET              the unix socket bb_worker reaches bb_runner on
//   BB_CONCURRENCY                how many actions the worker runs at once
//
// Each key is documented in Buildbarn's .proto files under
// pkg/proto/configuration/ (bb-storage and bb-remote-execution).
{
  stateDir: std.extVar('BB_STATE_DIR'),

  // Bazel's --remote_instance_name (.bazelrc, --config=buildbarn).
  instanceName: 'main',

  // The platform Bazel asks for (--remote_default_exec_properties in
  // .bazelrc). The scheduler matches it exactly against the worker's.
  platform: {
    properties: [
      { name: 'OSFamily', value: 'Linux' },
      { name: 'container-image', value: 'docker://native' },
    ],
  },

  // Bazel sends up to 4 MiB per call by default; blobs beyond that go
  // through ByteStream in chunks.
  maximumMessageSizeBytes: 16 * 1024 * 1024,

  // Logs, metrics and tracing: nothing beyond the defaults on one machine.
  global: {},

  // How the scheduler and the worker reach the CAS and the action cache:
  // bb_storage's internal, plain-text listener.
  blobstore: {
    contentAddressableStorage: {
      grpc: { address: std.extVar('BB_STORAGE_INTERNAL_ADDRESS') },
    },
    actionCache: {
      grpc: { address: std.extVar('BB_STORAGE_INTERNAL_ADDRESS') },
    },
  },

  // No authentication: every listener is on 127.0.0.1.
  allowAll: { allow: {} },
}

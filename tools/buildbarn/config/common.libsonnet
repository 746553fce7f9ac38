// What the four programs of havlak-lab's one-machine Buildbarn cluster
// share. `buildbarn run` (tools/buildbarn) starts them with these
// environment variables set; Buildbarn's programs expose their environment
// to Jsonnet as external variables (std.extVar).
//
//   BB_STATE_DIR                  where storage, build directories and logs live
//   BB_FRONTEND_ADDRESS           host:port Bazel talks to (bb_storage)
//   BB_FRONTEND_TLS_CERT, _KEY    PEM files; both empty: plain text
//   BB_CLIENT_CA                  PEM text of the CA whose client certificates
//                                 the frontend requires; empty: none required
//   BB_ACTION_CACHE_WRITER        the DNS name of the client certificate that
//                                 may write the action cache (trusted builds)
//   BB_INTERNAL_CA                with BB_CLIENT_CA: PEM text of the cluster's
//                                 own CA, made at start, which no client has
//   BB_INTERNAL_CERT, _KEY        the certificate both ends of every internal
//                                 connection present (files)
//   BB_STORAGE_INTERNAL_ADDRESS   host:port of bb_storage for the cluster itself
//   BB_SCHEDULER_CLIENT_ADDRESS   host:port where bb_storage sends Execute calls
//   BB_SCHEDULER_WORKER_ADDRESS   host:port where workers ask for work
//   BB_SCHEDULER_ADMIN_ADDRESS    host:port of the scheduler's web page
//   BB_RUNNER_SOCKET              the unix socket bb_worker reaches bb_runner on
//   BB_CONCURRENCY                how many actions the worker runs at once
//
// Each key is documented in Buildbarn's .proto files under
// pkg/proto/configuration/ (bb-storage and bb-remote-execution).
local clientCA = std.extVar('BB_CLIENT_CA');
local internalCA = std.extVar('BB_INTERNAL_CA');
local internalKeyPair = {
  files: {
    certificatePath: std.extVar('BB_INTERNAL_CERT'),
    privateKeyPath: std.extVar('BB_INTERNAL_KEY'),
    refreshInterval: '3600s',
  },
};

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

  // No authentication (without BB_CLIENT_CA): every listener is on
  // 127.0.0.1.
  allowAll: { allow: {} },

  // With BB_CLIENT_CA, every client authenticates with a certificate:
  // Bazel at the frontend (storage.jsonnet) with one from the client CA;
  // the cluster's programs among themselves with the internal one, so a
  // client that reaches an internal port on 127.0.0.1 is still refused.
  authenticated: clientCA != '',
  clientCA: clientCA,

  // The authentication metadata of every identity says whether it may
  // write the action cache (storage.jsonnet's putAuthorizer): the cluster
  // may, as its workers write the results of the actions they ran.
  internalServer(addresses):: {
    listenAddresses: addresses,
    authenticationPolicy: if $.authenticated then {
      tlsClientCertificate: {
        clientCertificateAuthorities: internalCA,
        validationJmespathExpression: '`true`',
        metadataExtractionJmespathExpression:
          '{public: {client: dnsNames[0]}, private: {actionCacheWriter: `true`}}',
      },
    } else $.allowAll,
    [if $.authenticated then 'tls']: { serverKeyPair: internalKeyPair },
  },
  internalClient(address):: {
    address: address,
    [if $.authenticated then 'tls']: {
      serverCertificateAuthorities: internalCA,
      clientKeyPair: internalKeyPair,
    },
  },

  // How the scheduler and the worker reach the CAS and the action cache:
  // bb_storage's internal listener.
  blobstore: {
    contentAddressableStorage: {
      grpc: $.internalClient(std.extVar('BB_STORAGE_INTERNAL_ADDRESS')),
    },
    actionCache: {
      grpc: $.internalClient(std.extVar('BB_STORAGE_INTERNAL_ADDRESS')),
    },
  },
}

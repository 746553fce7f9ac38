// bb_storage: the one endpoint Bazel talks to. It serves the CAS
// (ContentAddressableStorage, ByteStream) and the action cache from local
// block files under $BB_STATE_DIR/storage, which survive restarts, and
// forwards Execute/WaitExecution to the scheduler.
local common = import 'common.libsonnet';

// Blob storage in $BB_STATE_DIR/storage/NAME (`buildbarn run` makes the
// directory): a fixed-size file of blocks, new blobs written to the newest
// blocks, the oldest blocks recycled when the file is full (so it is a
// cache, never full). The key-location map (digest -> place in the file)
// and the "persistent" state make the content survive a restart. newBlocks:
// how many blocks take writes at once; the action cache, whose entries are
// overwritten, must write to one.
local localStore(name, sizeBytes, keyMapEntries, newBlocks) = {
  'local': {
    keyLocationMapOnBlockDevice: {
      file: {
        path: common.stateDir + '/storage/' + name + '/keys',
        sizeBytes: keyMapEntries * 64,
      },
    },
    keyLocationMapMaximumGetAttempts: 16,
    keyLocationMapMaximumPutAttempts: 64,
    oldBlocks: 8,
    currentBlocks: 24,
    newBlocks: newBlocks,
    blocksOnBlockDevice: {
      // A sparse file: it takes disk space only as blobs are written.
      source: {
        file: {
          path: common.stateDir + '/storage/' + name + '/blocks',
          sizeBytes: sizeBytes,
        },
      },
      spareBlocks: 3,
    },
    persistent: {
      stateDirectoryPath: common.stateDir + '/storage/' + name,
      minimumEpochInterval: '60s',
    },
  },
};

local tls = std.extVar('BB_FRONTEND_TLS_CERT');

// Who may do what (AuthorizerConfiguration in bb-storage's
// pkg/proto/configuration/auth). Without client certificates: anyone.
// With them, every authenticated client reaches the instance name 'main'
// and nothing else; only the trusted client and the cluster's workers
// write action results there (a result in the action cache is served to
// every later build, so one written by an untrusted build could poison
// main's binaries); the CAS is content-addressed, so anyone may write it.
local clients = if common.authenticated then {
  instanceNamePrefix: { allowedInstanceNamePrefixes: [common.instanceName] },
} else common.allowAll;
local actionCacheWriters = if common.authenticated then {
  jmespathExpression: "authenticationMetadata.private.actionCacheWriter && instanceName == '%s'" % common.instanceName,
} else common.allowAll;

{
  grpcServers: [
    // Bazel's endpoint: grpc:// or, given a certificate, grpcs://; given a
    // client CA too, only for clients with a certificate from it, whose
    // DNS name says whether it may write the action cache.
    {
      listenAddresses: [std.extVar('BB_FRONTEND_ADDRESS')],
      authenticationPolicy: if common.authenticated then {
        tlsClientCertificate: {
          clientCertificateAuthorities: common.clientCA,
          validationJmespathExpression: '`true`',
          metadataExtractionJmespathExpression:
            "{public: {client: dnsNames[0]}, private: {actionCacheWriter: contains(dnsNames, '%s')}}" %
            std.extVar('BB_ACTION_CACHE_WRITER'),
        },
      } else common.allowAll,
      [if tls != '' then 'tls']: {
        serverKeyPair: {
          files: {
            certificatePath: tls,
            privateKeyPath: std.extVar('BB_FRONTEND_TLS_KEY'),
            refreshInterval: '3600s',
          },
        },
      },
    },
    // The cluster's own endpoint (scheduler and worker).
    common.internalServer([std.extVar('BB_STORAGE_INTERNAL_ADDRESS')]),
  ],
  // 32 GiB of blobs: the Go SDK, the standard library compiled (12,000
  // files per GoStdlib action), every binary and test log of //...
  contentAddressableStorage: {
    backend: localStore('cas', 32 * 1024 * 1024 * 1024, 4 * 1024 * 1024, 3),
    getAuthorizer: clients,
    putAuthorizer: clients,
    findMissingAuthorizer: clients,
  },
  actionCache: {
    backend: localStore('ac', 256 * 1024 * 1024, 512 * 1024, 1),
    getAuthorizer: clients,
    // Bazel uploads the results of actions it ran itself
    // (--remote_upload_local_results), as with a plain remote cache: only
    // trusted clients' uploads are taken, and the workers' results.
    putAuthorizer: actionCacheWriters,
  },
  // Execute calls for instance names under '' (all) go to the scheduler.
  schedulers: {
    '': { endpoint: common.internalClient(std.extVar('BB_SCHEDULER_CLIENT_ADDRESS')) },
  },
  executeAuthorizer: clients,
  maximumMessageSizeBytes: common.maximumMessageSizeBytes,
  global: common.global,
}

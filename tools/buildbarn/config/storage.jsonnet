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

{
  grpcServers: [
    // Bazel's endpoint: grpc:// or, given a certificate, grpcs://.
    {
      listenAddresses: [std.extVar('BB_FRONTEND_ADDRESS')],
      authenticationPolicy: common.allowAll,
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
    // The cluster's own endpoint (scheduler and worker), plain text.
    {
      listenAddresses: [std.extVar('BB_STORAGE_INTERNAL_ADDRESS')],
      authenticationPolicy: common.allowAll,
    },
  ],
  // 32 GiB of blobs: the Go SDK, the standard library compiled (12,000
  // files per GoStdlib action), every binary and test log of //...
  contentAddressableStorage: {
    backend: localStore('cas', 32 * 1024 * 1024 * 1024, 4 * 1024 * 1024, 3),
    getAuthorizer: common.allowAll,
    putAuthorizer: common.allowAll,
    findMissingAuthorizer: common.allowAll,
  },
  actionCache: {
    backend: localStore('ac', 256 * 1024 * 1024, 512 * 1024, 1),
    getAuthorizer: common.allowAll,
    // Bazel uploads the results of actions it ran itself
    // (--remote_upload_local_results), as with a plain remote cache.
    putAuthorizer: common.allowAll,
  },
  // Execute calls for instance names under '' (all) go to the scheduler.
  schedulers: {
    '': { endpoint: { address: std.extVar('BB_SCHEDULER_CLIENT_ADDRESS') } },
  },
  executeAuthorizer: common.allowAll,
  maximumMessageSizeBytes: common.maximumMessageSizeBytes,
  global: common.global,
}

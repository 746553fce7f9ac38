// bb_worker: asks the scheduler for actions, fetches each one's inputs
// from the CAS into a directory of its own under the native build
// directory, has bb_runner run the command there, and uploads the outputs
// and the ActionResult: with client certificates required, through
// bb_storage's internal listener as the cluster (common.libsonnet), the
// one identity besides trusted clients that may write the action cache.
local common = import 'common.libsonnet';

{
  blobstore: common.blobstore,
  browserUrl: 'http://127.0.0.1/',
  maximumMessageSizeBytes: common.maximumMessageSizeBytes,
  scheduler: common.internalClient(std.extVar('BB_SCHEDULER_WORKER_ADDRESS')),
  global: common.global,
  buildDirectories: [{
    // Inputs are hard links into the cache directory (same file system),
    // so the build directory is plain files: commands run on this
    // machine's own tools (gcc, the Go SDK's paths), as they would locally.
    native: {
      buildDirectoryPath: common.stateDir + '/worker/build',
      cacheDirectoryPath: common.stateDir + '/worker/cache',
      maximumCacheFileCount: 100000,
      maximumCacheSizeBytes: 8 * 1024 * 1024 * 1024,
      cacheReplacementPolicy: 'LEAST_RECENTLY_USED',
    },
    runners: [{
      endpoint: { address: 'unix://' + std.extVar('BB_RUNNER_SOCKET') },
      // Actions at once: one per core.
      concurrency: std.parseInt(std.extVar('BB_CONCURRENCY')),
      instanceNamePrefix: common.instanceName,
      platform: common.platform,
      // How the scheduler's page names this worker.
      workerId: { host: 'localhost', worker: 'native' },
    }],
  }],
  // Outputs are written here before they are uploaded.
  filePool: { directoryPath: common.stateDir + '/worker/filepool' },
  outputUploadConcurrency: 11,
  // Directory listings of input roots, cached between actions.
  directoryCache: {
    maximumCount: 10000,
    maximumSizeBytes: 16 * 1024 * 1024,
    cacheReplacementPolicy: 'LEAST_RECENTLY_USED',
  },
}

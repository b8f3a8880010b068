import type { ArtifactClient } from '@actions/artifact'

/**
 * The artifact client, loaded on first use: it is the largest part of the
 * bundle, and a run without a baseline to fetch should not wait for it.
 */
export async function artifactClient(): Promise<ArtifactClient> {
  const { DefaultArtifactClient } = await import('@actions/artifact')
  return new DefaultArtifactClient()
}

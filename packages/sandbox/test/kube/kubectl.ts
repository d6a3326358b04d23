// Runs the real kubectl against the emulator. A missing kubectl is a failure, never a skip:
// these tests are the proof that the emulator is faithful.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export type KubectlResult = { code: number; stdout: string; stderr: string };

/** The dispatcher (`/usr/bin/kubectl` picks 1.27–1.33 by the server's version) and fixed versions. */
export const KUBECTL = process.env['KUBECTL'] ?? 'kubectl';
export const versioned = (minor: number): string => `/usr/lib/google-cloud-sdk/bin/kubectl.1.${minor}`;

/** Fixed-version binaries present on this machine (the oldest and newest are exercised). */
export function availableVersions(): string[] {
  return [27, 33].map(versioned).filter((path) => existsSync(path));
}

export function kubectl(
  kubeconfig: string,
  args: string[],
  binary = KUBECTL,
  timeoutMs = 50_000,
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: timeoutMs, env: { ...process.env, KUBECONFIG: kubeconfig, KUBECTL_EXTERNAL_DIFF: '' } },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`running ${binary} ${args.join(' ')} (is kubectl installed?)`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
  });
}

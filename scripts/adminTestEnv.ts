// The environment the operator-command tests run `npm run admin` with: this process's, on the
// embedded database and disk storage of `dataDir` (a DATABASE_URL or S3 bucket of the machine
// running the tests is ignored).
export function adminTestEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    S3_BUCKET: '',
    S3_ACCESS_KEY_ID: '',
    S3_SECRET_ACCESS_KEY: '',
    ...extra,
  };
}

// A throwaway self-signed certificate for 127.0.0.1, written in DER by hand so no openssl is needed.
// TLS matters because kubectl sends credentials only over https (clientcmd drops the token for
// a plain http:// server), so RBAC can only be exercised through kubectl over TLS.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const der = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const len = body.length;
  const header =
    len < 0x80
      ? Buffer.from([tag, len])
      : len < 0x100
        ? Buffer.from([tag, 0x81, len])
        : Buffer.from([tag, 0x82, len >> 8, len & 0xff]);
  return Buffer.concat([header, body]);
};
const seq = (...parts: Buffer[]): Buffer => der(0x30, ...parts);
const set = (...parts: Buffer[]): Buffer => der(0x31, ...parts);
const int = (bytes: Buffer): Buffer =>
  der(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
// DER wants the shortest encoding of an integer: a leading 0x00 before a byte under 0x80 is
// "illegal padding" to OpenSSL, which a random serial hits once in 512 tries. A serial whose first
// byte is 0x01..0x7f is minimal and positive by construction.
const serialNumber = (): Buffer => {
  const bytes = randomBytes(8);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes;
};
const oid = (text: string): Buffer => {
  const [a = 0, b = 0, ...rest] = text.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const utf8 = (text: string): Buffer => der(0x0c, Buffer.from(text, 'utf8'));
const time = (date: Date): Buffer =>
  der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z', 'ascii'));
const explicit = (n: number, inner: Buffer): Buffer => der(0xa0 + n, inner);
const octets = (inner: Buffer): Buffer => der(0x04, inner);
const bits = (inner: Buffer): Buffer => der(0x03, Buffer.from([0]), inner);

export type Certificate = { cert: string; key: string };

/** A self-signed ECDSA P-256 certificate valid for 127.0.0.1 and localhost, for one day. */
export function selfSignedCertificate(commonName = 'ec2-node-reconciler kube emulator'): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8(commonName))));
  const now = Date.now();
  const san = seq(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost', 'ascii')));
  const extensions = explicit(
    3,
    seq(
      seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), octets(seq(der(0x01, Buffer.from([0xff]))))),
      seq(oid('2.5.29.17'), octets(san)),
    ),
  );
  const tbs = seq(
    explicit(0, int(Buffer.from([2]))),
    int(serialNumber()),
    ecdsaSha256,
    name,
    seq(time(new Date(now - 3_600_000)), time(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ecdsaSha256, bits(signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END CERTIFICATE-----\n`;
  return { cert: pem, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

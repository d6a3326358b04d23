import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src/kube/tls.js';

describe('the kube emulator’s self-signed certificate', () => {
  // A random serial with a needless leading zero byte is refused by OpenSSL once in 512 certificates;
  // 3,000 of them would meet that case with a probability above 99 %.
  it('should be read by OpenSSL, signed by its own key, every time', () => {
    for (let i = 0; i < 3_000; i += 1) {
      const { cert, key } = selfSignedCertificate();
      const x509 = new X509Certificate(cert);
      expect(x509.verify(x509.publicKey)).toBe(true);
      expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
      expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    }
  });
});

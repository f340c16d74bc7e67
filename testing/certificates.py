"""A throw-away certificate authority for TLS tests: a CA, and certificates it signs for
servers (127.0.0.1 and localhost) and for callers (a common name, a DNS name)."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


class CertificateAuthority:
    """A CA whose certificate and issued key pairs are written as PEM files in ``folder``."""

    def __init__(self, folder: Path, name: str = "tavolo test CA"):
        self.folder = folder
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self._certificate = (
            x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name))
            .public_key(self._key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self._key, hashes.SHA256())
        )
        self.ca_file = folder / f"{name.replace(' ', '-')}.crt"
        self.ca_file.write_bytes(self._certificate.public_bytes(serialization.Encoding.PEM))

    def issue(self, common_name: str, dns_names: tuple[str, ...] = (),
              file_name: str | None = None, ip_address: bool = True) -> tuple[Path, Path]:
        """A certificate for servers and clients alike (localhost and, with ``ip_address``,
        127.0.0.1 are among its names, as cert-manager issues one with both usages); its
        (certificate, key) files."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        names: list[x509.GeneralName] = [x509.DNSName(name) for name in (*dns_names, "localhost")]
        if ip_address:
            names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
        certificate = (
            x509.CertificateBuilder().subject_name(_name(common_name))
            .issuer_name(self._certificate.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(self._key, hashes.SHA256())
        )
        stem = self.folder / (file_name or common_name)
        cert_file, key_file = stem.with_suffix(".crt"), stem.with_suffix(".key")
        cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return cert_file, key_file

package functions

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"strings"
)

// aesDefs are aes_encrypt, aes_decrypt and try_aes_decrypt, as Spark's
// ExpressionImplUtils.aesInternal: a 16, 24 or 32-byte key; GCM (the
// default, no padding, a 12-byte IV before the ciphertext and its
// 16-byte tag), CBC (PKCS#5 padding, a 16-byte IV before the
// ciphertext) or ECB (PKCS#5 padding, no IV); the IV drawn at random
// unless given; AAD for GCM only. Go's crypto/cipher has no ECB mode (it
// is unsafe for general use), so ECB encrypts block by block with the
// AES block cipher itself.
func aesDefs() []*Def {
	return []*Def{
		{Name: "aes_encrypt", Group: "misc", MinArgs: 2, MaxArgs: 6, ColumnName: withDefaults(6, "GCM", "DEFAULT", "", ""),
			Build: rowBuild(&rowImpl{resolve: sig(tBinary, tBinary, tBinary, tString, tString, tBinary, tBinary), eval: func(v []any) (any, error) {
				a := aesArgs(v, 4)
				return aesEncrypt(v[0].([]byte), v[1].([]byte), a.mode, a.padding, a.iv, a.aad)
			}})},
		aesDecryptDef("aes_decrypt", false),
		aesDecryptDef("try_aes_decrypt", true),
	}
}

func aesDecryptDef(name string, try bool) *Def {
	return &Def{Name: name, Group: "misc", MinArgs: 2, MaxArgs: 5, ColumnName: withDefaults(5, "GCM", "DEFAULT", ""),
		Build: rowBuild(&rowImpl{resolve: sig(tBinary, tBinary, tBinary, tString, tString, tBinary), mayBeNull: try, eval: func(v []any) (any, error) {
			a := aesArgs(v, -1)
			out, err := aesDecrypt(v[0].([]byte), v[1].([]byte), a.mode, a.padding, a.aad)
			if err != nil && try {
				return nil, nil
			}
			return out, err
		}})}
}

type aesOptions struct {
	mode, padding string
	iv, aad       []byte
}

// aesArgs reads the optional mode, padding, IV (at ivAt, -1 for none)
// and AAD arguments after the input and the key.
func aesArgs(v []any, ivAt int) aesOptions {
	o := aesOptions{mode: "GCM", padding: "DEFAULT"}
	if len(v) > 2 {
		o.mode = v[2].(string)
	}
	if len(v) > 3 {
		o.padding = v[3].(string)
	}
	aadAt := 4
	if ivAt > 0 {
		aadAt = 5
		if len(v) > ivAt {
			o.iv = v[ivAt].([]byte)
		}
	}
	if len(v) > aadAt {
		o.aad = v[aadAt].([]byte)
	}
	return o
}

// aesMode checks the key and the mode and padding Spark supports:
// ECB and CBC with PKCS (DEFAULT), GCM with NONE (DEFAULT).
func aesMode(fn string, key []byte, mode, padding string) (cipher.Block, string, error) {
	if n := len(key); n != 16 && n != 24 && n != 32 {
		return nil, "", fmt.Errorf("[INVALID_PARAMETER_VALUE.AES_KEY_LENGTH] The value of parameter(s) `key` in `%s` is invalid: expects a binary value with 16, 24 or 32 bytes, but got %d bytes. SQLSTATE: 22023", fn, n)
	}
	m, p := strings.ToUpper(mode), strings.ToUpper(padding)
	switch {
	case (m == "ECB" || m == "CBC") && (p == "PKCS" || p == "DEFAULT"),
		m == "GCM" && (p == "NONE" || p == "DEFAULT"):
	default:
		return nil, "", fmt.Errorf("[UNSUPPORTED_FEATURE.AES_MODE] The feature is not supported: AES-%s with the padding %s by the `%s` function. SQLSTATE: 0A000", mode, padding, fn)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, "", aesCryptoError(err.Error())
	}
	return block, m, nil
}

func aesCryptoError(detail string) error {
	return fmt.Errorf("[INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR] The value of parameter(s) `expr`, `key` in `aes_encrypt`/`aes_decrypt` is invalid: detail message: %s. SQLSTATE: 22023", detail)
}

func aesEncrypt(in, key []byte, mode, padding string, iv, aad []byte) (any, error) {
	block, m, err := aesMode("aes_encrypt", key, mode, padding)
	if err != nil {
		return nil, err
	}
	if len(aad) > 0 && m != "GCM" {
		return nil, fmt.Errorf("[UNSUPPORTED_FEATURE.AES_MODE_AAD] The feature is not supported: `aes_encrypt` with AES-%s does not support additional authenticate data (AAD). SQLSTATE: 0A000", mode)
	}
	ivLen := map[string]int{"ECB": 0, "CBC": aes.BlockSize, "GCM": 12}[m]
	switch {
	case ivLen == 0 && len(iv) > 0:
		return nil, fmt.Errorf("[UNSUPPORTED_FEATURE.AES_MODE_IV] The feature is not supported: AES-%s does not support initialization vectors (IVs). SQLSTATE: 0A000", mode)
	case len(iv) == 0 && ivLen > 0:
		iv = make([]byte, ivLen)
		if _, err := rand.Read(iv); err != nil {
			return nil, aesCryptoError(err.Error())
		}
	case len(iv) != ivLen:
		return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.AES_IV_LENGTH] The value of parameter(s) `iv` in `aes_encrypt` is invalid: supports 16-byte CBC IVs and 12-byte GCM IVs, but got %d bytes for %s. SQLSTATE: 22023", len(iv), m)
	}
	switch m {
	case "GCM":
		g, err := cipher.NewGCM(block)
		if err != nil {
			return nil, aesCryptoError(err.Error())
		}
		return g.Seal(append([]byte{}, iv...), iv, in, aad), nil
	case "CBC":
		buf := pkcs5Pad(in)
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
		return append(append([]byte{}, iv...), buf...), nil
	}
	buf := pkcs5Pad(in)
	for i := 0; i < len(buf); i += aes.BlockSize {
		block.Encrypt(buf[i:], buf[i:])
	}
	return buf, nil
}

func aesDecrypt(in, key []byte, mode, padding string, aad []byte) (any, error) {
	block, m, err := aesMode("aes_decrypt", key, mode, padding)
	if err != nil {
		return nil, err
	}
	if len(aad) > 0 && m != "GCM" {
		return nil, fmt.Errorf("[UNSUPPORTED_FEATURE.AES_MODE_AAD] The feature is not supported: `aes_decrypt` with AES-%s does not support additional authenticate data (AAD). SQLSTATE: 0A000", mode)
	}
	switch m {
	case "GCM":
		g, err := cipher.NewGCM(block)
		if err != nil {
			return nil, aesCryptoError(err.Error())
		}
		if len(in) < 12+g.Overhead() {
			return nil, aesCryptoError("Input data too short")
		}
		out, err := g.Open(nil, in[:12], in[12:], aad)
		if err != nil {
			return nil, aesCryptoError("Tag mismatch")
		}
		return out, nil
	case "CBC":
		if len(in) < aes.BlockSize || len(in)%aes.BlockSize != 0 {
			return nil, aesCryptoError("Input length must be multiple of 16 when decrypting with padded cipher")
		}
		buf := append([]byte{}, in[aes.BlockSize:]...)
		cipher.NewCBCDecrypter(block, in[:aes.BlockSize]).CryptBlocks(buf, buf)
		return pkcs5Unpad(buf)
	}
	if len(in)%aes.BlockSize != 0 {
		return nil, aesCryptoError("Input length must be multiple of 16 when decrypting with padded cipher")
	}
	buf := append([]byte{}, in...)
	for i := 0; i < len(buf); i += aes.BlockSize {
		block.Decrypt(buf[i:], buf[i:])
	}
	return pkcs5Unpad(buf)
}

func pkcs5Pad(b []byte) []byte {
	n := aes.BlockSize - len(b)%aes.BlockSize
	return append(append([]byte{}, b...), bytes.Repeat([]byte{byte(n)}, n)...)
}

func pkcs5Unpad(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, aesCryptoError("Given final block not properly padded. Such issues can arise if a bad key is used during decryption.")
	}
	n := int(b[len(b)-1])
	if n < 1 || n > aes.BlockSize || n > len(b) || !bytes.Equal(b[len(b)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, aesCryptoError("Given final block not properly padded. Such issues can arise if a bad key is used during decryption.")
	}
	return b[:len(b)-n], nil
}

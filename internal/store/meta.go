package store

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// PutMeta and GetMeta keep small documents (dataset definitions,
// worksheets, events) by key in the store's durable index: PutMeta is
// durable when it returns.
func (db *DB) PutMeta(key string, value []byte) error {
	if key == "" {
		return fmt.Errorf("store: empty meta key")
	}
	return db.metaUpdate(func(b *bolt.Bucket) error { return b.Put([]byte(key), bytes.Clone(value)) })
}

// GetMeta returns the document of key, or nil.
func (db *DB) GetMeta(key string) ([]byte, error) {
	var out []byte
	err := db.metaView(func(b *bolt.Bucket) error {
		if v := b.Get([]byte(key)); v != nil {
			out = bytes.Clone(v)
		}
		return nil
	})
	return out, err
}

// ListMeta returns the keys with prefix, in order.
func (db *DB) ListMeta(prefix string) ([]string, error) {
	var keys []string
	err := db.metaView(func(b *bolt.Bucket) error {
		c := b.Cursor()
		p := []byte(prefix)
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			keys = append(keys, string(k))
		}
		return nil
	})
	return keys, err
}

// DeleteMeta removes a document.
func (db *DB) DeleteMeta(key string) error {
	return db.metaUpdate(func(b *bolt.Bucket) error { return b.Delete([]byte(key)) })
}

func (db *DB) metaUpdate(fn func(*bolt.Bucket) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket(bucketMeta)) }); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func (db *DB) metaView(fn func(*bolt.Bucket) error) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return errClosed
	}
	if err := db.bolt.View(func(tx *bolt.Tx) error { return fn(tx.Bucket(bucketMeta)) }); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

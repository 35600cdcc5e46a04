package sim

import (
	"encoding/binary"
	"hash/fnv"
)

// blockPool is the paged KV cache: a fixed number of blocks of blockSize tokens, with
// vLLM V1's prefix cache on top. A full block may carry the hash of its tokens chained
// with its predecessor's hash; such a block stays findable after its requests free it,
// until it is evicted. Free blocks form one queue in eviction order (head first):
// freeing a request appends its blocks last-block-first, so a shared prefix outlives its
// tails.
type blockPool struct {
	blocks        []kvBlock
	head, tail    int32 // free queue; -1 when empty
	numFree       int
	cached        map[uint64]int32 // block hash → block holding it
	prefixCaching bool
}

type kvBlock struct {
	refs       int32
	hash       uint64
	hashed     bool
	prev, next int32
	free       bool
}

const noBlock = -1

func newBlockPool(n int, prefixCaching bool) *blockPool {
	p := &blockPool{
		blocks:        make([]kvBlock, n),
		head:          noBlock,
		tail:          noBlock,
		cached:        make(map[uint64]int32),
		prefixCaching: prefixCaching,
	}
	for i := range p.blocks {
		p.blocks[i].prev, p.blocks[i].next = noBlock, noBlock
		p.pushFree(int32(i))
	}
	return p
}

func (p *blockPool) pushFree(id int32) {
	b := &p.blocks[id]
	b.free = true
	b.prev, b.next = p.tail, noBlock
	if p.tail != noBlock {
		p.blocks[p.tail].next = id
	} else {
		p.head = id
	}
	p.tail = id
	p.numFree++
}

func (p *blockPool) removeFree(id int32) {
	b := &p.blocks[id]
	if b.prev != noBlock {
		p.blocks[b.prev].next = b.next
	} else {
		p.head = b.next
	}
	if b.next != noBlock {
		p.blocks[b.next].prev = b.prev
	} else {
		p.tail = b.prev
	}
	b.prev, b.next, b.free = noBlock, noBlock, false
	p.numFree--
}

// used is the number of blocks not in the free queue (vLLM's kv_cache_usage numerator).
func (p *blockPool) used() int { return len(p.blocks) - p.numFree }

// lookup returns the longest run of cached blocks matching hashes, at most max blocks.
func (p *blockPool) lookup(hashes []uint64, max int) []int32 {
	if !p.prefixCaching {
		return nil
	}
	var hits []int32
	for i, h := range hashes {
		if i >= max {
			break
		}
		id, ok := p.cached[h]
		if !ok {
			break
		}
		hits = append(hits, id)
	}
	return hits
}

// evictableAmong counts the blocks of ids that sit in the free queue: touching them
// takes them out of it, so they cannot also serve as new blocks.
func (p *blockPool) evictableAmong(ids []int32) int {
	n := 0
	for _, id := range ids {
		if p.blocks[id].free {
			n++
		}
	}
	return n
}

// touch takes a reference on blocks found in the prefix cache.
func (p *blockPool) touch(ids []int32) {
	for _, id := range ids {
		if p.blocks[id].free {
			p.removeFree(id)
		}
		p.blocks[id].refs++
	}
}

// allocate appends n fresh blocks to dst, evicting cached free blocks from the head of
// the queue. The caller has checked numFree.
func (p *blockPool) allocate(dst []int32, n int) []int32 {
	for range n {
		id := p.head
		p.removeFree(id)
		b := &p.blocks[id]
		if b.hashed {
			if p.cached[b.hash] == id {
				delete(p.cached, b.hash)
			}
			b.hashed = false
		}
		b.refs = 1
		dst = append(dst, id)
	}
	return dst
}

// release drops one reference on each block, last block first.
func (p *blockPool) release(ids []int32) {
	for i := len(ids) - 1; i >= 0; i-- {
		b := &p.blocks[ids[i]]
		b.refs--
		if b.refs == 0 {
			p.pushFree(ids[i])
		}
	}
}

// commit records that block id now holds the full block with hash h.
func (p *blockPool) commit(id int32, h uint64) {
	if !p.prefixCaching {
		return
	}
	b := &p.blocks[id]
	if b.hashed {
		return
	}
	b.hash, b.hashed = h, true
	if _, ok := p.cached[h]; !ok {
		p.cached[h] = id
	}
}

// chainHash is the hash of a full block of tokens following a block with hash parent.
func chainHash(parent uint64, tokens []int32) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], parent)
	h.Write(buf[:])
	for _, t := range tokens {
		binary.LittleEndian.PutUint32(buf[:4], uint32(t))
		h.Write(buf[:4])
	}
	return h.Sum64()
}

package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetSeries reads a recurring expense by id through GSI2, or nil when there
// is none. The index may lag a write by a moment; writes start from
// CurrentSeries.
func (s *Store) GetSeries(ctx context.Context, seriesID string) (*Series, error) {
	item, err := s.lookupGSI2(ctx, seriesGSI2PK(seriesID))
	if err != nil || item == nil {
		return nil, err
	}
	return decodeSeries(item)
}

// CurrentSeries reads a recurring expense of a known group strongly
// consistent, or nil.
func (s *Store) CurrentSeries(ctx context.Context, groupID, seriesID string) (*Series, error) {
	item, ok, err := s.getItem(ctx, groupPK(groupID), seriesSK(seriesID), true)
	if err != nil || !ok {
		return nil, err
	}
	return decodeSeries(item)
}

func decodeSeries(item map[string]types.AttributeValue) (*Series, error) {
	out, err := decodeAll([]map[string]types.AttributeValue{item}, (*seriesRecord).series)
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// SeriesKey locates a recurring expense in its group's partition.
type SeriesKey struct {
	GroupID  string
	SeriesID string
}

// GetSeriesByKeys reads many recurring expenses by key with as few
// BatchGetItem calls as possible, aligned with keys (nil where missing).
func (s *Store) GetSeriesByKeys(ctx context.Context, keys []SeriesKey) ([]*Series, error) {
	avKeys := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		avKeys[i] = tableKey(groupPK(k.GroupID), seriesSK(k.SeriesID))
	}
	items, err := s.batchGet(ctx, dedupeKeys(avKeys))
	if err != nil {
		return nil, err
	}
	return alignByID(items, keys, func(k SeriesKey) string { return k.SeriesID }, (*seriesRecord).series, func(sr *Series) string { return sr.ID })
}

package receipts

import (
	"context"

	"github.com/fracti/api/media"
	"github.com/fracti/api/store"
)

// avatarKinds are what a picture may be uploaded as: what can be decoded
// and re-encoded (not HEIC, not PDF).
func avatarKinds(k media.Kind) bool { return thumbnailed(k) }

// CreateAvatarUpload lets userID, whom the caller allowed to edit the group,
// upload a picture for the group (memberID "") or for one of its
// placeholders: checked, recorded as pending, and presigned for exactly
// that type and length.
func (s *Service) CreateAvatarUpload(ctx context.Context, groupID, memberID, userID, contentType string, size int64) (Ticket, error) {
	if !s.Configured() {
		return Ticket{}, ErrNotConfigured
	}
	kind, err := s.announced(contentType, size, avatarKinds)
	if err != nil {
		return Ticket{}, err
	}
	up, err := s.store.CreateUpload(ctx, store.Upload{
		ID: s.store.NewUploadID(store.AvatarUploadPrefix), GroupID: groupID, MemberID: memberID,
		ContentType: string(kind), Size: size, UserID: userID,
	})
	if err != nil {
		return Ticket{}, err
	}
	return s.presignPut(ctx, up.ID, store.AvatarUploadKey(groupID, up.ID), kind, size)
}

// PendingAvatar is the pending picture upload with the id in the group, or
// an error that says why there is none.
func (s *Service) PendingAvatar(ctx context.Context, groupID, uploadID string) (*store.Upload, error) {
	if !s.Configured() {
		return nil, ErrNotConfigured
	}
	up, err := s.store.GetUpload(ctx, groupID, uploadID)
	if err != nil {
		return nil, err
	}
	if up == nil || up.IsReceipt() {
		return nil, invalidf("uploadId", "no pending picture upload %s in this group: it expired, or was confirmed or refused already", uploadID)
	}
	return up, nil
}

// ConfirmAvatar sets the picture uploaded by up (from PendingAvatar) on
// behalf of actor, once the stored object proves to be an image of the
// announced type and size: re-encoded as a square JPEG at
// AvatarObjectKey, the upload's own object deleted. was is the path the
// group or placeholder had; it returns the new one.
func (s *Service) ConfirmAvatar(ctx context.Context, up *store.Upload, was, actor string) (string, error) {
	key := store.AvatarUploadKey(up.GroupID, up.ID)
	data, info, err := s.inspect(ctx, up, key)
	if err != nil {
		return "", err
	}
	square, err := media.Square(data, info, s.opts.AvatarSide)
	if err != nil {
		s.forget(ctx, up, key)
		return "", invalidf("uploadId", "the picture was refused: %v", err)
	}
	path := store.AvatarObjectKey(up.GroupID, up.MemberID)
	if err := s.objects.Put(ctx, path, string(media.JPEG), square); err != nil {
		return "", storageError(err)
	}
	if err := s.store.SetAvatar(ctx, up.GroupID, up.MemberID, was, path, up.ID, actor); err != nil {
		if was == "" {
			_ = s.objects.Delete(context.WithoutCancel(ctx), path) // recorded nowhere
		}
		return "", err
	}
	if err := s.objects.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.opts.Log.WarnContext(ctx, "delete a confirmed picture's upload", "upload", up.ID, "error", err)
	}
	return path, nil
}

// RemoveAvatar removes the uploaded picture of the group (memberID "") or of
// a placeholder, whose path was was, on behalf of actor.
func (s *Service) RemoveAvatar(ctx context.Context, groupID, memberID, was, actor string) error {
	if was == "" || !store.IsStoredAvatar(was) {
		return nil
	}
	if err := s.store.SetAvatar(ctx, groupID, memberID, was, "", "", actor); err != nil {
		return err
	}
	if s.Configured() {
		if err := s.objects.Delete(context.WithoutCancel(ctx), was); err != nil {
			s.opts.Log.WarnContext(ctx, "delete a removed picture", "path", was, "error", err)
		}
	}
	return nil
}

// AvatarURL mints a download of a stored picture (path from
// AvatarObjectKey); a URL that is not a storage path (Telegram's photo) is
// returned as it is.
func (s *Service) AvatarURL(ctx context.Context, path string) (string, error) {
	if !store.IsStoredAvatar(path) {
		return path, nil
	}
	return s.download(ctx, path, media.JPEG, "avatar"+media.JPEG.Extension())
}

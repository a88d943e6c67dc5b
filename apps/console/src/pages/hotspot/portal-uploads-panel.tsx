import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { Button, FileButton, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MSG } from '@portico/schema';
import { translateMessage } from '../../i18n/console-i18n.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { deletePortalFile, fetchPortalFiles, uploadPortalFile, type PortalFiles } from './portal-upload-api.js';
import { checkChosenFile, kilobytes, PORTAL_FILE_ACCEPT, PORTAL_FILE_KINDS, PORTAL_FILE_LIMITS, type PortalFileKind } from './portal-upload-rules.js';

/** Translated refusal shown beside the control it concerns. */
export type UploadErrors = Partial<Record<PortalFileKind, string>>;

export interface PortalUploadsViewProps {
  /** null while the list is loading. */
  files: PortalFiles | null;
  errors: UploadErrors;
  busy: PortalFileKind | null;
  onUpload(kind: PortalFileKind, file: File): void;
  onDelete(kind: PortalFileKind): void;
}

function CurrentFile({ kind, files }: { kind: PortalFileKind; files: PortalFiles | null }) {
  const { t } = useTranslation();
  if (!files) return <Text size="sm" c="dimmed">{t('entity.loading')}</Text>;
  const testId = `portal-file-${kind}-current`;
  if (kind === 'custom') {
    const custom = files.custom;
    if (!custom) return <Text size="sm" c="dimmed" data-testid={testId}>{t('hotspotUpload.none')}</Text>;
    return (
      <Text size="sm" data-testid={testId}>
        {t('hotspotUpload.archive', { name: custom.name, size: kilobytes(custom.size), files: custom.files })}
      </Text>
    );
  }
  const image = files[kind];
  if (!image) return <Text size="sm" c="dimmed" data-testid={testId}>{t('hotspotUpload.none')}</Text>;
  return (
    <Text size="sm" data-testid={testId}>
      {t('hotspotUpload.image', {
        name: image.name,
        type: image.type.toUpperCase(),
        width: image.width,
        height: image.height,
        size: kilobytes(image.size),
      })}
    </Text>
  );
}

/**
 * The portal's uploaded files: what is there now, and upload or remove for each. Names are
 * rendered as text by React, never as markup.
 */
export function PortalUploadsView({ files, errors, busy, onUpload, onDelete }: PortalUploadsViewProps) {
  const { t } = useTranslation();
  // Cleared after each choice, so choosing the same file again (fixed on disk) is seen.
  const resets: Record<PortalFileKind, RefObject<(() => void) | null>> = {
    picture: useRef<() => void>(null),
    logo: useRef<() => void>(null),
    custom: useRef<() => void>(null),
  };
  const choose = (kind: PortalFileKind, file: File | null) => {
    if (file) onUpload(kind, file);
    resets[kind].current?.();
  };
  return (
    <Paper withBorder p="lg" radius="md" maw={720} data-testid="portal-uploads">
      <Stack gap="sm">
        <Title order={4}>{t('hotspotUpload.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('hotspotUpload.customHint')}
        </Text>
        <Table verticalSpacing="sm">
          <Table.Tbody>
            {PORTAL_FILE_KINDS.map((kind) => {
              const present = files ? files[kind] !== undefined : false;
              return (
                <Table.Tr key={kind} data-testid={`portal-file-${kind}`}>
                  <Table.Td>
                    <Stack gap={2}>
                      <Text fw={600} size="sm">
                        {t(`hotspotUpload.kind.${kind}`)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {t(`hotspotUpload.rule.${kind}`, { limit: kilobytes(PORTAL_FILE_LIMITS[kind]) })}
                      </Text>
                      <CurrentFile kind={kind} files={files} />
                      {errors[kind] && (
                        <Text size="sm" c="red" role="alert" data-testid={`portal-file-${kind}-error`}>
                          {errors[kind]}
                        </Text>
                      )}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <FileButton accept={PORTAL_FILE_ACCEPT[kind]} resetRef={resets[kind]} onChange={(file) => choose(kind, file)}>
                        {(props) => (
                          <Button size="xs" variant="light" loading={busy === kind} disabled={busy !== null && busy !== kind} data-testid={`portal-file-${kind}-upload`} {...props}>
                            {t(present ? 'hotspotUpload.replace' : 'hotspotUpload.upload')}
                          </Button>
                        )}
                      </FileButton>
                      <Button
                        size="xs"
                        variant="light"
                        color="red"
                        disabled={!present || busy !== null}
                        data-testid={`portal-file-${kind}-delete`}
                        onClick={() => onDelete(kind)}
                      >
                        {t('hotspotUpload.remove')}
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Stack>
    </Paper>
  );
}

/** The portal files panel of /hotspot/localportal, with its data and calls. */
export function PortalUploadsPanel() {
  const { t } = useTranslation();
  const [files, setFiles] = useState<PortalFiles | null>(null);
  const [errors, setErrors] = useState<UploadErrors>({});
  const [busy, setBusy] = useState<PortalFileKind | null>(null);

  const reload = useCallback(() => {
    fetchPortalFiles()
      .then(setFiles)
      .catch(() => setFiles({})); // reported by the API client
  }, []);
  useEffect(reload, [reload]);

  const setError = (kind: PortalFileKind, text: string | undefined) =>
    setErrors((prev) => {
      const next = { ...prev };
      if (text) next[kind] = text;
      else delete next[kind];
      return next;
    });

  async function upload(kind: PortalFileKind, file: File) {
    if (busy) return;
    setError(kind, undefined);
    const refusal = await checkChosenFile(kind, file);
    if (refusal) {
      setError(kind, t(refusal.key, refusal.values ?? {}));
      return;
    }
    setBusy(kind);
    try {
      const reply = await uploadPortalFile(kind, file, file.name);
      if (reply.success) {
        showSuccessNotice(t('hotspotUpload.uploaded'));
        if (reply.data) setFiles(reply.data);
        else reload();
      } else {
        // The notice has been shown; the reason also stays beside this control.
        setError(kind, reply.msg === MSG.forbidden ? t('common.visitorNoWriting') : translateMessage(reply.msg));
      }
    } catch {
      // Reported by the upload call.
    } finally {
      setBusy(null);
    }
  }

  async function remove(kind: PortalFileKind) {
    if (busy || !window.confirm(t('hotspotUpload.confirmRemove', { kind: t(`hotspotUpload.kind.${kind}`) }))) return;
    setError(kind, undefined);
    setBusy(kind);
    try {
      const reply = await deletePortalFile(kind);
      if (reply.success) {
        showSuccessNotice(t('hotspotUpload.removed'));
        if (reply.data) setFiles(reply.data);
        else reload();
      } else if (reply.msg === MSG.forbidden) {
        setError(kind, t('common.visitorNoWriting'));
      }
    } catch {
      // Reported by the API client.
    } finally {
      setBusy(null);
    }
  }

  return <PortalUploadsView files={files} errors={errors} busy={busy} onUpload={(k, f) => void upload(k, f)} onDelete={(k) => void remove(k)} />;
}

import { useState } from 'react';
import { Button, FileInput, Group, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { ApiReply } from '@portico/schema';
import { apiUpload } from '../../api/api-client.js';
import { PageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { useMenuTitle } from '../../routes/current-route.js';

const BACK = '/wirelessmanage/firmware';

/**
 * Upload a signed AP image (/wirelessmanage/firmware/add): model, version (as the AP reports
 * it once running), the Ed25519 signature of its SHA-256 digest, and the file. A signature no
 * trusted key verifies is refused ("firmware file may be corrupt").
 */
export default function FirmwareUploadPage() {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const navigate = useNavigate();
  const [model, setModel] = useState('');
  const [version, setVersion] = useState('');
  const [signature, setSignature] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit() {
    if (!file) return;
    const form = new FormData();
    form.append('model', model.trim());
    form.append('version', version.trim());
    form.append('signature', signature.trim());
    form.append('file', file, file.name);
    const reply: ApiReply<unknown> | null = await apiUpload('ac/firmware/upload', form, 'msg.firmware.tooLarge').catch(() => null);
    if (!reply) return;
    if (!reply.success) return setErrors(reply.errors ?? {});
    showSuccessNotice(t('wireless.firmware.uploadedNotice'));
    void navigate(BACK);
  }

  return (
    <Stack gap="md" maw={640} data-testid="firmware-upload-page">
      <PageHeading title={`${menuTitle} · ${t('wireless.firmware.upload')}`} />
      <TextInput label={t('wireless.field.model')} value={model} maxLength={64} onChange={(e) => setModel(e.currentTarget.value)} error={errors.model && t(errors.model)} data-testid="firmware-model" />
      <TextInput label={t('wireless.firmware.version')} description={t('wireless.firmware.versionHint')} value={version} maxLength={64} onChange={(e) => setVersion(e.currentTarget.value)} error={errors.version && t(errors.version)} data-testid="firmware-version" />
      <TextInput label={t('wireless.firmware.signature')} description={t('wireless.firmware.signatureHint')} value={signature} maxLength={100} onChange={(e) => setSignature(e.currentTarget.value)} error={errors.signature && t(errors.signature)} data-testid="firmware-signature" />
      <FileInput label={t('wireless.firmware.file')} value={file} onChange={setFile} error={errors.file && t(errors.file)} data-testid="firmware-file" />
      <Text size="sm" c="dimmed">
        {t('wireless.firmware.uploadHint')}
      </Text>
      <Group>
        <Button variant="default" onClick={() => void navigate(BACK)}>
          {t('common.cancel')}
        </Button>
        <Button disabled={!file || !model.trim() || !version.trim() || !signature.trim()} onClick={() => void submit()} data-testid="firmware-submit">
          {t('wireless.firmware.upload')}
        </Button>
      </Group>
    </Stack>
  );
}

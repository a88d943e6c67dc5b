import { useCallback, useEffect, useState } from 'react';
import { Button, FileButton, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatIspFile, ISP_FILE_GROUPS, parseIspFile, qosIsp, type AnyEntity, type IspDefaults, type IspFile, type IspFileGroup, type ListPage, type QosIsp } from '@portico/schema';
import { apiGet } from '../../api/api-client.js';
import { showErrorNotice, showSuccessNotice } from '../../shell/notice.js';
import { deleteEntityRecords, saveEntityRecord } from '../entity/entity-api.js';

const entity = qosIsp as unknown as AnyEntity;

function downloadText(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * Operator (ISP) definition files (spec §2): per ISP group, download the networks the device
 * uses, upload a file that replaces them, or go back to the definition the device ships with
 * (the group's entry is removed; the four operator groups have a shipped file, the custom
 * groups none). Every change is an ordinary write of the ISP list.
 */
export function QosIspPanel() {
  const { t } = useTranslation();
  const [rows, setRows] = useState<QosIsp[]>([]);
  const [builtin, setBuiltin] = useState<Partial<Record<IspFileGroup, number>>>({});
  const reload = useCallback(async () => {
    const [page, defaults] = await Promise.all([
      apiGet<ListPage<QosIsp>>(entity.path),
      apiGet<IspDefaults>(`${entity.path}/defaults`),
    ]);
    setRows(page.items);
    setBuiltin(Object.fromEntries(defaults.groups.map((g) => [g.group, g.count])));
  }, []);
  useEffect(() => {
    void reload().catch(() => undefined);
  }, [reload]);

  const upload = async (group: (typeof ISP_FILE_GROUPS)[number], file: File | null) => {
    if (!file) return;
    const networks = parseIspFile(await file.text());
    if (!networks) {
      showErrorNotice(t('qos.isp.invalid'));
      return;
    }
    const current = rows.find((r) => r.group === group);
    const values = { group, name: current?.name ?? t(`qosIsp.option.group.${group}`).slice(0, 32), networks };
    const reply = current ? await saveEntityRecord(entity, 'edit', current.id, values) : await saveEntityRecord(entity, 'add', null, values);
    if (reply.success) showSuccessNotice(t('qos.isp.uploaded'));
    await reload();
  };

  const download = async (group: IspFileGroup) => {
    const file = await apiGet<IspFile>(`${entity.path}/file`, { group });
    downloadText(`isp-${group}.txt`, formatIspFile(group, file.networks));
  };

  const status = (group: IspFileGroup, row: QosIsp | undefined): string => {
    if (row) return t('qos.isp.uploadedCount', { count: row.networks.length });
    const shipped = builtin[group];
    return shipped === undefined ? t('qos.isp.none') : t('qos.isp.builtinCount', { count: shipped });
  };

  const useDefault = async (row: QosIsp | undefined) => {
    if (!row) return;
    await deleteEntityRecords(entity, { id: row.id });
    await reload();
  };

  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={4}>{t('qos.isp.title')}</Title>
        <Table>
          <Table.Tbody>
            {ISP_FILE_GROUPS.map((group) => {
              const row = rows.find((r) => r.group === group);
              return (
                <Table.Tr key={group}>
                  <Table.Td>{t(`qosIsp.option.group.${group}`)}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed" data-testid={`isp-status-${group}`}>
                      {status(group, row)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end">
                      <Button size="xs" variant="default" data-testid={`isp-download-${group}`} onClick={() => void download(group).catch(() => undefined)}>
                        {t('qos.isp.download')}
                      </Button>
                      <FileButton onChange={(file) => void upload(group, file)} accept="text/plain,.txt">
                        {(props) => (
                          <Button size="xs" variant="default" data-testid={`isp-upload-${group}`} {...props}>
                            {t('qos.isp.upload')}
                          </Button>
                        )}
                      </FileButton>
                      <Button size="xs" variant="subtle" data-testid={`isp-default-${group}`} disabled={!row} onClick={() => void useDefault(row)}>
                        {t('qos.isp.useDefault')}
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

import type { ReactNode } from 'react';
import { MultiSelect, NumberInput, PasswordInput, Select, Stack, Switch, TagsInput, Text, TextInput, Textarea } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { FieldValue, FormFieldModel } from './entity-form-model.js';

interface EntityFieldInputProps {
  field: FormFieldModel;
  value: FieldValue;
  /** Translated error text, if any. */
  error?: string | undefined;
  disabled?: boolean;
  onChange: (value: FieldValue) => void;
}

/** One form field, drawn by its widget. Labels and help come from `<entity>.field|help.<name>`. */
export function EntityFieldInput({ field, value, error, disabled, onChange }: EntityFieldInputProps) {
  const { t, i18n } = useTranslation();
  const label = t(field.labelKey);
  const notes: string[] = [];
  if (i18n.exists(field.helpKey)) notes.push(t(field.helpKey));
  if (field.keepWhenEmpty) notes.push(t('entity.keepWhenEmpty'));
  if (field.addOnly) notes.push(t('entity.readOnlyOnEdit'));
  const description: ReactNode = notes.length ? (
    <Stack gap={2} component="span">
      {notes.map((note) => (
        <Text key={note} span size="xs" c="dimmed">
          {note}
        </Text>
      ))}
    </Stack>
  ) : undefined;
  const errorNode: ReactNode = error ? <span data-testid={`field-error-${field.name}`}>{error}</span> : undefined;
  const common = {
    label,
    description,
    error: errorNode,
    withAsterisk: field.required,
    'data-testid': `field-${field.name}`,
    name: field.name,
  };
  const locked = disabled || field.readOnly;
  const optionLabel = (o: FormFieldModel['options'][number]) => o.label ?? t(o.labelKey, { defaultValue: o.key });

  switch (field.widget) {
    case 'switch':
      return (
        <Switch
          label={label}
          description={description}
          error={errorNode}
          data-testid={`field-${field.name}`}
          name={field.name}
          checked={value === true}
          disabled={locked}
          onChange={(event) => onChange(event.currentTarget.checked)}
        />
      );
    case 'number':
      return (
        <NumberInput
          {...common}
          value={typeof value === 'number' || typeof value === 'string' ? value : ''}
          min={field.min}
          max={field.max}
          allowDecimal={!field.integer}
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(next) => onChange(next)}
        />
      );
    case 'select': {
      // A reference that may stay empty ("any interface", "no plan") can be cleared back to ''.
      const clearable = field.ref !== undefined && !field.required && !locked;
      return (
        <Select
          {...common}
          data={field.options.map((o) => ({ value: o.key, label: optionLabel(o) }))}
          value={value === null || value === undefined || value === '' ? null : String(value)}
          placeholder={t(field.ref && !field.required ? 'entity.refNone' : 'entity.selectPlaceholder')}
          nothingFoundMessage={field.ref ? t('entity.refEmpty') : undefined}
          allowDeselect={false}
          clearable={clearable}
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(key) => onChange(field.options.find((o) => o.key === key)?.value ?? (clearable ? '' : null))}
        />
      );
    }
    case 'multiselect':
      return (
        <MultiSelect
          {...common}
          data={field.options.map((o) => ({ value: o.key, label: optionLabel(o) }))}
          value={Array.isArray(value) ? value : []}
          placeholder={locked ? undefined : t('entity.selectPlaceholder')}
          nothingFoundMessage={t('entity.refEmpty')}
          clearable={!locked}
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(next) => onChange(next)}
        />
      );
    case 'tags':
      return (
        <TagsInput
          {...common}
          value={Array.isArray(value) ? value : []}
          placeholder={locked ? undefined : t('entity.tagsPlaceholder')}
          // Addresses are often pasted as one line: split on commas, spaces and newlines.
          splitChars={[',', ' ', '\n']}
          acceptValueOnBlur
          clearable={!locked}
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(next) => onChange(next)}
        />
      );
    case 'password':
      return (
        <PasswordInput
          {...common}
          value={typeof value === 'string' ? value : ''}
          autoComplete="new-password"
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      );
    case 'textarea':
    case 'lines':
      return (
        <Textarea
          {...common}
          value={typeof value === 'string' ? value : ''}
          autosize
          minRows={3}
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      );
    default:
      return (
        <TextInput
          {...common}
          value={typeof value === 'string' ? value : value === null ? '' : String(value)}
          autoComplete="off"
          readOnly={field.readOnly}
          disabled={disabled}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      );
  }
}

import { defineDomain } from '../../config/domain-module.js';
import { registerDiagnosis, type DiagnosisDeps } from './diagnosis-routes.js';

/** Network diagnosis: ping and route trace from the device with live output, and the telnet client. */
export const diagnosisModule = defineDomain({
  name: 'diagnosis',
  pages: ['networkdiagnosis', 'telnetclient'],
  register: (app, ctx, deps: DiagnosisDeps | undefined) => registerDiagnosis(app, ctx, deps),
});

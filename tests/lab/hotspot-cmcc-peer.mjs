// A CMCC portal server (version 1, no authenticator) for the lab: run in the upstream namespace,
// it asks the gateway's access controller for a challenge for one user address, answers it by
// CHAP (MD5 of the request id's low byte, the password, the challenge) or signs in by PAP, and
// prints the ErrCodes and TextInfo it got as one JSON line.
// Arguments: <ac address> <ac port> <user ip> <user name> <password> [chap|pap]
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';

const [acAddress, acPort, userIp, username, password, method = 'chap'] = process.argv.slice(2);
const socket = createSocket('udp4');
let serial = Math.floor(Math.random() * 60000) + 1;

function packet(type, reqId, attributes, pap = false) {
  const header = Buffer.alloc(16);
  header.writeUInt8(1, 0);
  header.writeUInt8(type, 1);
  header.writeUInt8(pap ? 1 : 0, 2);
  header.writeUInt16BE(serial++, 4);
  header.writeUInt16BE(reqId, 6);
  Buffer.from(userIp.split('.').map(Number)).copy(header, 8);
  header.writeUInt8(attributes.length, 15);
  return Buffer.concat([header, ...attributes.map(([t, v]) => Buffer.concat([Buffer.from([t, v.length + 2]), v]))]);
}

function exchange(bytes) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer')), 5000);
    socket.once('message', (answer) => {
      clearTimeout(timer);
      const attributes = new Map();
      for (let at = 16; at + 2 <= answer.length; at += answer[at + 1]) attributes.set(answer[at], answer.subarray(at + 2, at + answer[at + 1]));
      resolve({ type: answer[1], reqId: answer.readUInt16BE(6), errCode: answer[14], attributes });
    });
    socket.send(bytes, Number(acPort), acAddress);
  });
}

const name = [1, Buffer.from(username)];
let result;
if (method === 'pap') {
  const auth = await exchange(packet(3, 0, [name, [2, Buffer.from(password)]], true));
  result = { auth: auth.errCode, text: auth.attributes.get(5)?.toString() ?? null };
} else {
  const challenge = await exchange(packet(1, 0, []));
  const value = challenge.attributes.get(3);
  if (challenge.errCode !== 0 || !value) result = { challenge: challenge.errCode };
  else {
    const response = createHash('md5').update(Buffer.from([challenge.reqId & 0xff])).update(password).update(value).digest();
    const auth = await exchange(packet(3, challenge.reqId, [name, [3, value], [4, response]]));
    result = { challenge: 0, auth: auth.errCode, text: auth.attributes.get(5)?.toString() ?? null };
  }
}
process.stdout.write(`${JSON.stringify(result)}\n`);
socket.close();
